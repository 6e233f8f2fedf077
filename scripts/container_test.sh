#!/usr/bin/env bash
# make test-container (issue 22 item 5): the Dockerfile, unchanged, built with podman and run as README.md's
# "Docker" section says. `.ci/run` runs it after `make test`.
#
# These machines have no Docker engine and reach no container registry, so (FIELD-NOTES, "Containers"):
# - podman runs with scripts/container/containers.conf (runc, no default ulimits), read through CONTAINERS_CONF;
# - the two base images the Dockerfile names are made locally when missing, under the same names:
#   debian:bookworm-slim from debootstrap, swift:6.3.1-bookworm from this machine's toolchain;
# - `docker` in the README's block is a two-line shim for podman (build: --format docker keeps HEALTHCHECK,
#   --isolation chroot, the local package copies mounted read-only so `swift package resolve` works offline).
#
# Then, on the container the README's block started:
#   the HEALTHCHECK passes; the README's `exec ... token create` token publishes a set; the set verifies with
#   the public half of the key the container was given; SIGTERM (docker stop) exits 0; a new container on the
#   same volume serves the same bytes;
# and on containers it starts itself:
#   the image runs as uid 10001 by default, also with --read-only and a tmpfs on /tmp; compose.yaml (the key
#   as a secret, the data volume) runs with podman-compose and serves; the runtime image adds at most 80 MB to
#   its base.
# Every wait is bounded; every container, image build folder and volume is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CONTAINERS_CONF=$ROOT/scripts/container/containers.conf
PINSET=${PINSET:-$ROOT/.build/debug/pinset}   # the host's CLI, to verify what the container serves
MAX_ADDED_MB=${MAX_ADDED_MB:-80}

fail() { echo "test-container: FAILED: $*" >&2; exit 1; }
step() { echo "test-container: $*"; }

TOOLCHAIN=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../.." && pwd)
PACKAGES=$(git config --system --get-regexp 'url\..*\.insteadof' | awk 'NR == 1 { sub(/^url\./, "", $1); sub(/\.insteadof$/, "", $1); sub(/\/$/, "", $1); print $1 }')
[ -n "$PACKAGES" ] && [ -d "$PACKAGES" ] || fail "no local package copies (git config --system url.*.insteadOf)"

WORK=$(mktemp -d /tmp/pinset-container-XXXXXX)
CONTAINERS=(pinset pinset-uid pinset-ro)
cleanup() {
    for name in "${CONTAINERS[@]}"; do podman rm -f -t 2 "$name" >/dev/null 2>&1 || true; done
    if [ -f "$WORK/src/compose.yaml" ]; then
        (cd "$WORK/src" && podman-compose down -t 2 >/dev/null 2>&1) || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# ---- base images, made here when missing ----
# A stand-in made by an older version of this script is made again (the label says which).
STAND_IN=2
stand_in() { [ "$(podman image inspect --format '{{index .Config.Labels "pinset.stand-in"}}' "$1" 2>/dev/null)" = "$STAND_IN" ]; }
if ! stand_in docker.io/library/debian:bookworm-slim; then
    step "making debian:bookworm-slim with debootstrap"
    debootstrap --variant=minbase bookworm "$WORK/rootfs" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -20 "$WORK/debootstrap.log"; fail "debootstrap"; }
    # What makes the official image "slim" and keeps apt's downloads out of image layers (the same two files).
    cp scripts/container/dpkg-slim.cfg "$WORK/rootfs/etc/dpkg/dpkg.cfg.d/docker"
    cp scripts/container/apt-docker-clean.conf "$WORK/rootfs/etc/apt/apt.conf.d/docker-clean"
    find "$WORK/rootfs/usr/share/doc" -type f ! -name copyright -delete
    rm -rf "$WORK"/rootfs/usr/share/{man,info,locale,groff,lintian}/* "$WORK"/rootfs/var/cache/apt/archives/*.deb \
        "$WORK"/rootfs/var/cache/apt/*.bin "$WORK"/rootfs/var/lib/apt/lists/*
    tar -C "$WORK/rootfs" -c . | podman import -q --change "LABEL pinset.stand-in=$STAND_IN" \
        - docker.io/library/debian:bookworm-slim >/dev/null
    rm -rf "$WORK/rootfs"
    podman rmi -f docker.io/library/swift:6.3.1-bookworm >/dev/null 2>&1 || true
fi
if ! stand_in docker.io/library/swift:6.3.1-bookworm; then
    step "making swift:6.3.1-bookworm from $TOOLCHAIN"
    podman build -q --format docker --isolation chroot -v "$TOOLCHAIN:/toolchain:ro" \
        --build-arg "TOOLCHAIN=$TOOLCHAIN" --build-arg "PACKAGES=$PACKAGES" --label "pinset.stand-in=$STAND_IN" \
        -f scripts/container/swift-bookworm.Containerfile -t docker.io/library/swift:6.3.1-bookworm \
        scripts/container >/dev/null
fi

# ---- the source, as a clean clone has it (tracked and new files; nothing ignored) ----
mkdir -p "$WORK/src" "$WORK/bin"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$WORK/src"
cat >"$WORK/bin/docker" <<EOF
#!/bin/sh
# docker -> podman on this machine (see scripts/container_test.sh)
if [ "\$1" = compose ]; then
    shift
    exec podman-compose "\$@"
fi
if [ "\$1" = build ]; then
    shift
    # Developers iterating on this script only (CI never sets it): keep an image built from this same commit.
    if [ -n "\${CONTAINER_TEST_REUSE_IMAGE:-}" ] && podman image exists localhost/pinset; then exit 0; fi
    exec podman build --format docker --isolation chroot -v "$PACKAGES:$PACKAGES:ro" "\$@"
fi
exec podman "\$@"
EOF
chmod +x "$WORK/bin/docker"

# ---- docs/CONFIGURATION.md, "Docker", as written ----
podman rm -f -t 2 pinset >/dev/null 2>&1 || true
python3 scripts/runbook_test.py --print docker >"$WORK/docker.sh"
step "running the Docker block of docs/CONFIGURATION.md (docker build takes 10-15 minutes on 2 cores)"
started=$(date +%s)
(cd "$WORK/src" && PATH="$WORK/bin:$PATH" bash -euo pipefail "$WORK/docker.sh") >"$WORK/docker.out" 2>&1 \
    || { tail -40 "$WORK/docker.out"; fail "the Docker block of docs/CONFIGURATION.md"; }
step "Docker block done in $(($(date +%s) - started)) s"
TOKEN=$(grep '^pst_' "$WORK/docker.out" | tail -1)
[ -n "$TOKEN" ] || { tail -5 "$WORK/docker.out"; fail "docker exec ... token create printed no token"; }

healthy() {   # NAME: the image's HEALTHCHECK passes within 30 s
    for _ in $(seq 60); do
        podman healthcheck run "$1" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    podman logs --tail 20 "$1" >&2 || true
    fail "$1: the HEALTHCHECK (pinset health) did not pass within 30 s"
}
healthy pinset
step "HEALTHCHECK passes"

# A set written with the documented token, through the published port, verifies with the key the container has.
openssl pkey -in "$WORK/src/secrets/signing-key.pem" -pubout -out "$WORK/signing.pub"
pin() { openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 2>/dev/null | openssl pkey -pubout -outform DER | openssl dgst -sha256 -binary | base64; }
PINSET_TOKEN=$TOKEN "$PINSET" set container.example.com --server http://127.0.0.1:8081 --pin "$(pin)" --backup "$(pin)" >"$WORK/set.out" 2>&1 \
    || { cat "$WORK/set.out"; fail "pinset set with the documented token"; }
"$PINSET" fetch container.example.com --server http://127.0.0.1:8080 --trust-key "$WORK/signing.pub" >"$WORK/fetch1.out" 2>&1 \
    || { cat "$WORK/fetch1.out"; fail "the published set does not verify with the container's key"; }
curl -sf -D "$WORK/headers1" -o "$WORK/doc1" http://127.0.0.1:8080/pins/container.example.com || fail "GET /pins"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/admin/hosts)" = 404 ] \
    || fail "the public port 8080 answers the admin API (the image's two planes: admin on 8081)"
step "a set published with the documented token verifies; the admin API is on 8081 only"

# docker stop sends SIGTERM; with --init the server gets it and exits 0.
podman stop -t 20 pinset >/dev/null
code=$(podman inspect pinset --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || { podman logs --tail 20 pinset >&2; fail "after SIGTERM the container exited $code, not 0"; }
step "SIGTERM: exit 0"

# A new container on the same volume serves the same document, byte for byte.
podman rm pinset >/dev/null
(cd "$WORK/src" && PATH="$WORK/bin:$PATH" bash -euo pipefail -c "$(sed -n '/^docker run/,/^  pinset$/p' "$WORK/docker.sh")") >/dev/null
healthy pinset
curl -sf -o "$WORK/doc2" http://127.0.0.1:8080/pins/container.example.com || fail "GET /pins after the restart"
cmp -s "$WORK/doc1" "$WORK/doc2" || fail "a new container on the same volume serves other bytes"
step "a new container on the same volume serves the same bytes"

# Without --user the image runs as uid 10001, so its volume and key must be readable by that user.
for name in pinset-uid pinset-ro; do
    mkdir -p "$WORK/$name/data"
    install -m 0400 "$WORK/src/secrets/signing-key.pem" "$WORK/$name/key.pem"
    chown -R 10001:10001 "$WORK/$name"
done
podman run -d --name pinset-uid --init -p 127.0.0.1:18091:8080 -v "$WORK/pinset-uid/data:/data" \
    -v "$WORK/pinset-uid/key.pem:/run/secrets/pinset-signing-key:ro" pinset >/dev/null
podman run -d --name pinset-ro --init --read-only --tmpfs /tmp -p 127.0.0.1:18092:8080 \
    -v "$WORK/pinset-ro/data:/data" -v "$WORK/pinset-ro/key.pem:/run/secrets/pinset-signing-key:ro" pinset >/dev/null
for name in pinset-uid pinset-ro; do
    healthy "$name"
    uid=$(podman exec "$name" sh -c 'id -u')
    [ "$uid" = 10001 ] || fail "$name runs as uid $uid, not 10001"
    server_uid=$(podman top "$name" huser args | awk '/pinset serve|pinset$/ { print $1; exit }')
    [ "$server_uid" = 10001 ] || fail "$name: the server runs as $server_uid, not 10001"
done
podman exec pinset-ro sh -c 'touch /usr/local/bin/x' 2>/dev/null && fail "pinset-ro: the root file system is writable"
for name in pinset-uid pinset-ro; do
    podman stop -t 20 "$name" >/dev/null
    code=$(podman inspect "$name" --format '{{.State.ExitCode}}')
    [ "$code" = 0 ] || fail "$name exited $code after SIGTERM"
done
step "uid 10001 by default, also with --read-only and a tmpfs on /tmp"

# the Compose block of docs/CONFIGURATION.md (compose.yaml: the key as a secret, the same ./data volume), as written.
command -v podman-compose >/dev/null || fail "podman-compose is not installed (make test-container installs it)"
python3 scripts/runbook_test.py --print docker-compose >"$WORK/compose.sh"
(cd "$WORK/src" && PATH="$WORK/bin:$PATH" bash -euo pipefail "$WORK/compose.sh") >"$WORK/compose.out" 2>&1 \
    || { cat "$WORK/compose.out"; fail "the Compose block of docs/CONFIGURATION.md"; }
compose_container=$(podman ps -q --filter label=com.docker.compose.service=pinset | head -1)
[ -n "$compose_container" ] || { cat "$WORK/compose.out"; fail "docker compose up started no container"; }
healthy "$compose_container"
curl -sf -o "$WORK/doc3" http://127.0.0.1:8080/pins/container.example.com || fail "compose: GET /pins on 127.0.0.1:8080"
cmp -s "$WORK/doc1" "$WORK/doc3" || fail "compose: the same volume and key serve other bytes"
(cd "$WORK/src" && podman-compose down -t 20) >>"$WORK/compose.out" 2>&1 || { cat "$WORK/compose.out"; fail "podman-compose down"; }
step "compose.yaml (the key as a secret, the same volume) serves the same bytes"

# The CA bundle copied from the build stage (for HTTPS alert webhooks) is where libcurl looks, readable by uid 10001.
certs=$(podman run --rm --entrypoint /bin/sh pinset -c 'grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt' \
    2>/dev/null) || fail "the image has no readable /etc/ssl/certs/ca-certificates.crt"
[ "$certs" -ge 100 ] || fail "the image's CA bundle holds $certs certificates"
step "the CA bundle holds $certs certificates, readable by uid 10001"

# The runtime image adds at most MAX_ADDED_MB to its base.
base=$(podman image inspect docker.io/library/debian:bookworm-slim --format '{{.Size}}')
image=$(podman image inspect localhost/pinset --format '{{.Size}}')
added=$(((image - base) / 1000000))
step "the runtime image adds $added MB to debian:bookworm-slim (at most $MAX_ADDED_MB)"
[ "$added" -le "$MAX_ADDED_MB" ] || fail "the runtime image adds $added MB, more than $MAX_ADDED_MB"

# deploy/kubernetes/ played with podman kube play, on the image built above (issue 37).
PINSET=$PINSET bash scripts/kube_play_test.sh || fail "deploy/kubernetes/ with podman kube play"
echo "test-container: passed"
