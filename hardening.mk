# Hardening tests (issue 6), included by the Makefile. Each script takes the server binary from $(PINSET).
# test-hardening: the fast run for `make test` (about 4 minutes); soak: the long run (about 40 minutes).
PINSET ?= $(shell $(SWIFT) build --show-bin-path)/pinset

.PHONY: test-hardening soak hardening-deps

hardening-deps:
	$(call apt_install,wrk sqlite3)
	@python3 -c 'import schemathesis, cryptography, joserfc, yaml' 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check schemathesis cryptography joserfc pyyaml

test-hardening: hardening-deps
	PINSET=$(PINSET) python3 scripts/hardening/run_all.py

soak: hardening-deps
	PINSET=$$($(SWIFT) build -c release --show-bin-path)/pinset python3 scripts/hardening/run_all.py --soak
