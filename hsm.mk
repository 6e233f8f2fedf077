# Keys in hardware (issue 25), included by the Makefile: SoftHSM 2 and OpenSC's pkcs11-tool for the PKCS#11 tests
# (Tests/CLITests/HardwareKeyTests, which `swift test` runs with every other test), the runbook of
# docs/HARDWARE-KEYS.md, and the signing benchmark. p11-kit's header is what the CPKCS11 target compiles against.
APT_HSM := softhsm2 opensc libp11-kit-dev

.PHONY: hsm-deps test-hsm bench-hsm

hsm-deps:
	$(call apt_install,$(APT_HSM))

# The PKCS#11 tests alone (about 5 s once built).
test-hsm: hsm-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter HardwareKeyTests

# Signing through SoftHSM against the in-memory OpenSSL key, and the start-up re-sign of 100,000 documents
# through the token (bench/hsm.sh; release build).
bench-hsm: hsm-deps release
	PINSET=$$($(SWIFT) build -c release --show-bin-path)/pinset bash bench/hsm.sh
