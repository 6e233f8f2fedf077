# Hardening tests (issue 6), included by the Makefile. Each script takes the server binary from $(PINSET).
# test-hardening: the fast run for `make test` (about 4 minutes); soak: the long run (about 45 minutes).
PINSET ?= $(shell $(SWIFT) build --show-bin-path)/pinset
# hypothesis 6.170 or later: with the 6.155 some machines come with, schemathesis's coverage phase spends the whole
# time budget drawing strings for openapi.yaml's patterns (352 cases in 150 s, no fuzzing or stateful phase; 2,083
# cases in 60 s and 17 of 19 links with 6.170.17, same seed).
PIP_HARDENING := schemathesis "hypothesis>=6.170" cryptography joserfc pyyaml
# The libFuzzer build of the parser fuzz harness: its own build directory, every Swift module instrumented;
# linked with lld (gold crashes with an internal error on the instrumented objects).
FUZZ_BUILD ?= .build-fuzz
FUZZ_RUNS  ?= 1000000
FUZZ_FLAGS := -c release --product PinSetFuzz --build-path $(FUZZ_BUILD) \
	-Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -parse-as-library -Xswiftc -use-ld=lld
LIBFUZZER  := $(FUZZ_BUILD)/release/PinSetFuzz

.PHONY: test-hardening soak hardening-deps fuzz-quick fuzz-build fuzz

hardening-deps:
	$(call apt_install,wrk sqlite3)
	@python3 -c 'import schemathesis, cryptography, joserfc, yaml, hypothesis; \
		assert tuple(map(int, hypothesis.__version__.split(".")[:2])) >= (6, 170)' 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check $(PIP_HARDENING) \
		|| python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $(PIP_HARDENING)

test-hardening: hardening-deps
	$(SWIFT) build --product pinset
	$(SWIFT) build --product PinSetFuzz
	PINSET=$(PINSET) python3 scripts/hardening/run_all.py

soak: hardening-deps fuzz-build
	$(SWIFT) build --build-tests
	$(SWIFT) build -c release --product pinset
	$(SWIFT) build -c release --product PinSetFuzz
	PINSET=$$($(SWIFT) build -c release --show-bin-path)/pinset PINSET_LIBFUZZER=$(LIBFUZZER) \
		python3 scripts/hardening/run_all.py --soak

# Parser fuzzing alone: the seeded mutation engine (fuzz-quick), or libFuzzer's coverage-guided engine (fuzz).
fuzz-quick:
	$(SWIFT) build --product PinSetFuzz
	$$($(SWIFT) build --show-bin-path)/PinSetFuzz --runs 200000 \
		--regressions Tests/EndToEndTests/FuzzRegressions --findings .build/fuzz-findings

fuzz-build: deps
	$(SWIFT) build $(FUZZ_FLAGS)

fuzz: fuzz-build
	$(SWIFT) build --product PinSetFuzz
	PINSET=$$($(SWIFT) build --show-bin-path)/pinset python3 scripts/hardening/parser_fuzz.py --runs 0 \
		--libfuzzer $(LIBFUZZER) --libfuzzer-runs $(FUZZ_RUNS)
