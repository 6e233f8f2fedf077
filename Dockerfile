# pinset server image.
#   docker build -t pinset .
#   docker run --init -p 8080:8080 -p 127.0.0.1:8081:8081 -v "$PWD/data:/data" \
#     -v "$PWD/data/signing-key.pem:/run/secrets/pinset-signing-key:ro" pinset
# Two listeners (README "Security model"): 8080 serves what clients read (/pins, /keys, /trust, /log, /reports,
# /healthz); 8081 the admin API, console and metrics. Publish 8081 on loopback or a private network only.
# See docs/CONFIGURATION.md, "Docker". The steps below are the same as its build from source.

# ---- build: the official Swift toolchain image for Debian 12, same Swift as the project (6.3.x) ----
FROM swift:6.3.1-bookworm AS build

# Unpinned on purpose: Debian's security updates replace these versions within a release, and a pin
# would break the build on the next update. The base image pins the distribution (bookworm).
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libmicrohttpd-dev libsqlite3-dev libssl-dev libp11-kit-dev pkg-config ca-certificates \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Resolve dependencies in their own layer so that a source change does not fetch them again.
COPY Package.swift ./
RUN swift package resolve

COPY . .
# install -s strips the symbol table (122 MB unstripped); crash backtraces then name no functions.
# The link takes 3.3 MB off the binary, so the image stays under 80 MB above its base (scripts/container_test.sh):
# lld (in the toolchain) packs the 2.2 MB of relative relocations (DT_RELR, glibc 2.36+: bookworm has 2.36), and
# --no-export-dynamic undoes the toolchain's -export-dynamic (static-stdlib-args.lnk), which kept 10,680 of
# pinset's own symbols in the dynamic table and, as roots, from --gc-sections. Nothing looks them up (no dlsym).
RUN swift build -c release --product pinset --static-swift-stdlib \
        -Xswiftc -use-ld=lld -Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs \
    && install -D -s -m 0755 "$(swift build -c release --show-bin-path)/pinset" /staging/pinset

# ---- runtime: only the shared libraries pinset links against ----
FROM debian:bookworm-slim

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Unpinned for the same reason as above. libcurl4 is what Foundation's URLSession (the CLI's admin client and
# `pinset health`) links; the HEALTHCHECK runs `pinset health`, so there is no curl binary. The CA bundle (for
# HTTPS alert webhooks) is copied from the build stage, refreshed there: the ca-certificates package would also
# pull in the openssl program, 2.7 MB that would put the image over 80 MB above its base (issue 22).
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libmicrohttpd12 libsqlite3-0 libssl3 libcurl4 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin pinset \
    && install -d -o pinset -g pinset -m 0750 /data

COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /staging/pinset /usr/local/bin/pinset

# Fail the image build, not the first start, if a shared library is missing.
RUN ! ldd /usr/local/bin/pinset | grep "not found"

ENV PINSET_DB=/data/pinset.sqlite \
    PINSET_KEY=/run/secrets/pinset-signing-key \
    PINSET_PORT=8080 \
    PINSET_BIND=0.0.0.0 \
    PINSET_ADMIN_PORT=8081 \
    PINSET_ADMIN_BIND=0.0.0.0 \
    PINSET_THREADS=2

USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 8080 8081

# Keys in hardware (docs/HARDWARE-KEYS.md): the image holds no PKCS#11 module; pinset dlopens the one you mount,
# with its configuration, and the key is a URI instead of a file. The PIN comes from a mounted file named by
# pin-source (or PINSET_PKCS11_PIN from a secret store), never from the command line. For example, SoftHSM:
#   docker run --init -p 8080:8080 -v "$PWD/data:/data" \
#     -v /usr/lib/softhsm/libsofthsm2.so:/opt/pkcs11/module.so:ro \
#     -v "$PWD/softhsm2.conf:/etc/softhsm2.conf:ro" -v "$PWD/tokens:/var/lib/softhsm/tokens" \
#     -v "$PWD/pin:/run/secrets/pinset-pin:ro" \
#     -e SOFTHSM2_CONF=/etc/softhsm2.conf -e PINSET_PKCS11_MODULE=/opt/pkcs11/module.so \
#     -e PINSET_KEY='pkcs11:token=pinset;object=signing-2026?pin-source=file:/run/secrets/pinset-pin' pinset
# A vendor module (CloudHSM, YubiHSM 2, Google's kmsp11) is mounted the same way with its own configuration file
# and the shared libraries it needs; those were not run here.

# `pinset health` reads PINSET_PORT, so it follows an override at run time (8080 by default). `--ready` asks /readyz:
# documents loaded, the signing key (or PKCS#11 token) answers, the log caught up, not draining after SIGTERM.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["pinset", "health", "--ready", "--timeout", "2"]

ENTRYPOINT ["pinset"]
CMD ["serve"]
