#!/usr/bin/env bash
# deploy/kubernetes/ played with `podman kube play` (issue 37 item 1); scripts/container_test.sh runs it last
# (`make test-container`), after it built the image `localhost/pinset`.
#
# What Debian's podman 4.3.1 cannot play, and what this test does instead (FIELD-NOTES, "podman kube play"):
# - a Secret volume: `podman kube play` crashes on it here (nil pointer in VolumeFromSecret), with or without
#   `defaultMode`, whether the Secret is in the same file or played before. So the Secret volume is replaced by a
#   folder holding the files as Kubernetes mounts them: first root-owned, mode 0644 (a Secret without
#   defaultMode), which the writer must refuse, naming the manifest fix; then root-owned, group 10001, mode 0440
#   (`defaultMode: 0440` and `fsGroup: 10001`), which it must accept and use.
# - Services, NetworkPolicy, PodDisruptionBudget, CronJob are not played: the test talks to the pods' addresses,
#   and points the mirrors' `--log-from` at the writer pod's address where the manifest names its Service. The
#   Services' selectors are checked against the Deployments' labels instead.
# - podman publishes a containerPort on the host's port of the same number (two pods cannot both have 8080):
#   the test drops `ports` and talks to the pods' addresses.
# - The mirrors' `replicas: 2` makes two pods (pinset-mirror-pod-0 and -1); the test reads from the first. podman
#   does not route by readiness probes, so the test asks /readyz itself.
# - nginx:1.27-bookworm is a local stand-in made from Debian's nginx (scripts/container/nginx-bookworm.Containerfile).
#
# Checked: the writer becomes ready (/readyz 200); a set written through its admin API with a token made by
# `pinset token create` in the pod is served by a mirror with the same bytes, verifies with the signing key's
# public half, and has its proof on the mirror; the writer's log is JSON, one object per line; no key, no token
# in any container's log; after SIGTERM the writer answers /readyz 503 while still serving, then exits 0;
# `podman kube down` removes every pod and container it played (4.3.1 keeps the named volumes of the claim and
# the ConfigMap: the test removes them by hand).
# Every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CONTAINERS_CONF=${CONTAINERS_CONF:-$ROOT/scripts/container/containers.conf}
PINSET=${PINSET:-$ROOT/.build/debug/pinset}
NGINX_IMAGE=docker.io/library/nginx:1.27-bookworm
VOLUME=pinset-data
CONFIG_VOLUME=pinset-mirror-nginx   # podman makes a named volume of the ConfigMap

fail() { echo "kube-play: FAILED: $*" >&2; exit 1; }
step() { echo "kube-play: $*"; }

podman image exists localhost/pinset:latest || fail "no image localhost/pinset (scripts/container_test.sh builds it)"
WORK=$(mktemp -d /tmp/pinset-kube-XXXXXX)
PLAYED=()
cleanup() {
    for file in "${PLAYED[@]}"; do podman kube down "$file" >/dev/null 2>&1 || true; done
    podman volume rm -f "$VOLUME" "$CONFIG_VOLUME" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
# What an earlier run that was killed may have left.
for pod in $(podman pod ps --format '{{.Name}}' | grep -E '^pinset-(writer|mirror)-pod-' || true); do
    podman pod rm -f "$pod" >/dev/null 2>&1 || true
done
podman volume rm -f "$VOLUME" "$CONFIG_VOLUME" >/dev/null 2>&1 || true

if [ "$(podman image inspect --format '{{index .Config.Labels "pinset.stand-in"}}' "$NGINX_IMAGE" 2>/dev/null)" != 1 ]; then
    step "making $NGINX_IMAGE from Debian's nginx"
    podman build -q --format docker --isolation chroot --label pinset.stand-in=1 \
        -f scripts/container/nginx-bookworm.Containerfile -t "$NGINX_IMAGE" scripts/container >/dev/null
fi

# ---- the manifests as podman can play them ----
# MODE: key-folder DIR (the Secret volume replaced by the folder DIR) | mirrors URL (the writer's Service name
# replaced by URL). Kinds podman does not play are left out.
manifest() {
    python3 - "$@" <<'EOF'
import sys, yaml
source, mode, argument = sys.argv[1], sys.argv[2], sys.argv[3]
played = {"PersistentVolumeClaim", "ConfigMap", "Deployment", "Pod"}
out = []
for doc in yaml.safe_load_all(open(source)):
    if not doc or doc["kind"] not in played:
        continue
    if doc["kind"] == "Deployment":
        spec = doc["spec"]["template"]["spec"]
        for container in spec["containers"]:
            container.pop("ports", None)   # podman would publish each containerPort on the host
        for volume in spec.get("volumes", []):
            if "secret" in volume and mode == "key-folder":
                del volume["secret"]
                volume["hostPath"] = {"path": argument, "type": "Directory"}
        if mode == "mirrors":
            for container in spec["containers"]:
                container["args"] = [a.replace("http://pinset-writer:8080", argument) for a in container.get("args", [])]
    out.append(doc)
yaml.safe_dump_all(out, sys.stdout, sort_keys=False)
EOF
}

# The Services select the Deployments' pods (podman does not play Services).
python3 - <<'EOF' || fail "a Service does not select its Deployment's pods"
import yaml
for name in ["pinset-writer", "pinset-mirrors"]:
    docs = [d for d in yaml.safe_load_all(open(f"deploy/kubernetes/{name}.yaml")) if d]
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    for service in (d for d in docs if d["kind"] == "Service"):
        selector = service["spec"]["selector"]
        assert all(labels.get(k) == v for k, v in selector.items()), (service["metadata"]["name"], selector, labels)
        ports = {p["name"] for c in deployment["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
        assert all(p["targetPort"] in ports for p in service["spec"]["ports"]), service["spec"]["ports"]
EOF

# ---- the keys (`kubectl create secret generic pinset-keys --from-file=...` takes these two files) ----
mkdir -p "$WORK/keys"
(umask 077 && openssl genpkey -algorithm ed25519 -out "$WORK/keys/signing-key.pem" \
    && openssl genpkey -algorithm ed25519 -out "$WORK/keys/log-key.pem")
openssl pkey -in "$WORK/keys/signing-key.pem" -pubout -out "$WORK/signing.pub"

pod_of() { podman pod ps --format '{{.Name}}' | awk -v prefix="$1" 'index($0, prefix) == 1 { print; exit }' || true; }
ip_of() {   # POD: its address on podman's network
    local infra
    infra=$(podman pod inspect "$1" --format '{{.InfraContainerID}}')
    podman inspect "$infra" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}'
}
play() {   # FILE
    PLAYED+=("$1")
    podman kube play "$1" >"$WORK/play.out" 2>&1 || { cat "$WORK/play.out"; fail "podman kube play $1"; }
}
down() {   # FILE
    podman kube down "$1" >/dev/null 2>&1 || fail "podman kube down $1"
    local kept=()
    for file in "${PLAYED[@]}"; do [ "$file" = "$1" ] || kept+=("$file"); done
    PLAYED=("${kept[@]}")
}

# ---- 1. the key as Kubernetes mounts a Secret without defaultMode (root, 0644): refused, with the fix ----
install -d -m 0755 "$WORK/default-mode"
for name in signing-key.pem log-key.pem; do install -m 0644 -o 0 -g 0 "$WORK/keys/$name" "$WORK/default-mode/$name"; done
manifest deploy/kubernetes/pinset-writer.yaml key-folder "$WORK/default-mode" >"$WORK/writer-0644.yaml"
play "$WORK/writer-0644.yaml"
writer=$(pod_of pinset-writer)
[ -n "$writer" ] || fail "no writer pod"
refused=""
for _ in $(seq 60); do
    podman logs "$writer-pinset" >"$WORK/refused.log" 2>&1 || true
    if grep -q "defaultMode: 0440" "$WORK/refused.log"; then refused=yes; break; fi
    sleep 0.5
done
podman logs "$writer-pinset" >"$WORK/refused.log" 2>&1 || true
[ -n "$refused" ] || { tail -5 "$WORK/refused.log"; fail "a key mounted 0644 was not refused with the manifest's fix"; }
grep -q "readable by others" "$WORK/refused.log" || fail "the refusal does not say why: $(tail -1 "$WORK/refused.log")"
step "a key mounted 0644 is refused: $(grep -o 'has mode [0-9]*, readable by others' "$WORK/refused.log" | head -1)"
down "$WORK/writer-0644.yaml"
podman volume rm -f "$VOLUME" >/dev/null

# ---- 2. the key as Kubernetes mounts it with defaultMode 0440 and fsGroup 10001: the writer becomes ready ----
install -d -m 0750 -o 0 -g 10001 "$WORK/mounted"
for name in signing-key.pem log-key.pem; do install -m 0440 -o 0 -g 10001 "$WORK/keys/$name" "$WORK/mounted/$name"; done
manifest deploy/kubernetes/pinset-writer.yaml key-folder "$WORK/mounted" >"$WORK/writer.yaml"
play "$WORK/writer.yaml"
writer=$(pod_of pinset-writer)
WRITER_IP=$(ip_of "$writer")
[ -n "$WRITER_IP" ] || fail "the writer pod has no address"
WRITER=http://$WRITER_IP:8080
ADMIN=http://$WRITER_IP:8081   # the admin plane (PINSET_ADMIN_PORT): the public port answers /admin with 404
ready=""
for _ in $(seq 120); do
    if [ "$(curl -s -o "$WORK/readyz" -w '%{http_code}' "$WRITER/readyz")" = 200 ]; then ready=yes; break; fi
    sleep 0.5
done
[ -n "$ready" ] || { podman logs --tail 20 "$writer-pinset" >&2 || true; fail "the writer did not become ready within 60 s"; }
step "the writer is ready: $(cat "$WORK/readyz")"
uid=$(podman top "$writer-pinset" huser | awk 'NR == 2 { print $1 }')
[ "$uid" = 10001 ] || fail "the writer runs as $uid, not 10001"
podman exec "$writer-pinset" pinset health --ready >/dev/null || fail "pinset health --ready in the pod"

# The admin token bootstrap of docs/KUBERNETES.md (kubectl exec ... pinset token create).
TOKEN=$(podman exec "$writer-pinset" pinset token create --name admin | tail -n 1)
[[ "$TOKEN" == pst_* ]] || fail "pinset token create in the pod printed no token"

# ---- 3. the mirrors, exporting from the writer ----
manifest deploy/kubernetes/pinset-mirrors.yaml mirrors "$WRITER" >"$WORK/mirrors.yaml"
play "$WORK/mirrors.yaml"
mirror=$(pod_of pinset-mirror)
MIRROR=http://$(ip_of "$mirror"):8080
pin() { openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 2>/dev/null | openssl pkey -pubout -outform DER | openssl dgst -sha256 -binary | base64; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$WRITER/admin/hosts")" = 404 ] \
    || fail "the writer's public port answers the admin API"
PINSET_TOKEN=$TOKEN "$PINSET" set kube.example.com --server "$ADMIN" --pin "$(pin)" --backup "$(pin)" >"$WORK/set.out" 2>&1 \
    || { cat "$WORK/set.out"; fail "pinset set through the writer's admin API"; }
curl -sf -o "$WORK/writer.doc" "$WRITER/pins/kube.example.com" || fail "the writer does not serve the set"
same=""
for _ in $(seq 60); do
    if curl -sf -o "$WORK/mirror.doc" "$MIRROR/pins/kube.example.com" && cmp -s "$WORK/writer.doc" "$WORK/mirror.doc"; then
        same=yes
        break
    fi
    sleep 0.5
done
[ -n "$same" ] || { podman logs --tail 20 "$mirror-export" >&2 || true; fail "the mirror does not serve the writer's bytes within 30 s"; }
"$PINSET" fetch kube.example.com --server "$MIRROR" --trust-key "$WORK/signing.pub" >"$WORK/fetch.out" 2>&1 \
    || { cat "$WORK/fetch.out"; fail "the mirror's document does not verify"; }
curl -sf -o "$WORK/mirror.proof" "$MIRROR/pins/kube.example.com/proof" || fail "the mirror serves no proof"
[ "$(head -1 "$WORK/mirror.proof")" = c2sp.org/tlog-proof@v1 ] || fail "the mirror's proof is not a tlog-proof"
curl -sf -o /dev/null "$MIRROR/log/checkpoint" || fail "the mirror serves no checkpoint"
curl -sf "$MIRROR/keys" | cmp -s - <(curl -sf "$WRITER/keys") || fail "the mirror's /keys is not the writer's"
step "a set written through the writer's admin plane (8081; 404 on 8080) is served by the mirror, same bytes, verified, with its proof"

# ---- 4. logs: JSON lines from the writer; no key, no token anywhere ----
podman logs "$writer-pinset" >"$WORK/writer.log" 2>&1
python3 - "$WORK/writer.log" <<'EOF' || fail "the writer's log is not one JSON object per line"
import json, sys
lines = [line for line in open(sys.argv[1]) if line.strip()]
assert lines, "no log lines"
for line in lines:
    entry = json.loads(line)
    assert {"time", "level", "message", "logger"} <= entry.keys(), line
EOF
for container in "$writer-pinset" "$mirror-export" "$mirror-nginx"; do
    podman logs "$container" >>"$WORK/all.log" 2>&1 || true
done
for name in signing-key.pem log-key.pem; do
    sed -n 2p "$WORK/keys/$name" | cut -c 1-40 >"$WORK/needle"
    grep -qF -f "$WORK/needle" "$WORK/all.log" && fail "$name appears in a container's log"
done
grep -q "PRIVATE KEY" "$WORK/all.log" && fail "a PEM private key appears in a container's log"
grep -qF "$TOKEN" "$WORK/all.log" && fail "the admin token appears in a container's log"
grep -qF "${TOKEN#pst_}" "$WORK/all.log" && fail "the admin token's secret part appears in a container's log"
step "the writer logs $(wc -l <"$WORK/writer.log") JSON lines; no key and no token in any log"

# ---- 5. SIGTERM: /readyz 503 at once, still serving during the drain, then exit 0 ----
# `podman stop` sends SIGTERM (and, unlike a bare kill, keeps the Deployment's restart policy from restarting it).
podman stop -t 30 "$writer-pinset" >/dev/null 2>&1 &
STOPPING=$!
draining=""
for _ in $(seq 40); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "$WRITER/readyz")" = 503 ]; then draining=yes; break; fi
    sleep 0.05
done
[ -n "$draining" ] || fail "/readyz did not turn 503 within 2 s of SIGTERM"
sleep 2
curl -sf -o /dev/null "$WRITER/pins/kube.example.com" || fail "the writer stopped serving 2 s into its 5 s drain"
wait "$STOPPING" || fail "podman stop"
code=$(podman inspect "$writer-pinset" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] || fail "after SIGTERM the writer exited $code, not 0"
step "SIGTERM: /readyz 503 at once, /pins still served 2 s later, exit 0 after the drain"

# ---- 6. podman kube down removes what was played ----
for file in "$WORK/mirrors.yaml" "$WORK/writer.yaml"; do down "$file"; done
left=$(podman pod ps --format '{{.Name}}' | grep -E '^pinset-(writer|mirror)' || true)
[ -z "$left" ] || fail "pods left after podman kube down: $left"
left=$(podman ps -a --format '{{.Names}}' | grep -E '^pinset-(writer|mirror)' || true)
[ -z "$left" ] || fail "containers left after podman kube down: $left"
# Debian's podman 4.3.1 keeps the named volumes a play made (the claim's and the ConfigMap's).
podman volume rm "$VOLUME" "$CONFIG_VOLUME" >/dev/null
step "podman kube down removed every pod and container (the two named volumes, which it keeps, by hand)"
echo "kube-play: passed"
