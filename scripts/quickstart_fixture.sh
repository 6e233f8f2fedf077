# Shared by scripts/quickstart_test.sh (Swift) and scripts/jvm_quickstart_test.sh (JVM): the README quickstarts'
# step 1, a real pin server and a real TLS server with its set. Sourced with WORK, PINSET and fail() defined and PIDS
# an array; sets SERVER, TOKEN, TLS_PORT and LEAF, defines free_port and put_pins, and leaves the shell in
# $WORK/pinned-demo (ca.pem is there). Every wait is bounded; everything started is added to PIDS.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# 1. The pin server (--dev: key created, admin token printed as the banner's last line).
"$PINSET" serve --dev --db "$WORK/data/pinset.sqlite" --key "$WORK/data/signing-key.pem" --port 0 \
    >"$WORK/serve.out" 2>"$WORK/serve.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q '^pst_' "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
SERVER=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" | head -1)
TOKEN=$(grep '^pst_' "$WORK/serve.out" | head -1)
[ -n "$SERVER" ] && [ -n "$TOKEN" ] || fail "pinset serve printed no URL or token: $(cat "$WORK/serve.out" "$WORK/serve.err")"

# The README's test CA and localhost certificate, served by openssl s_server.
cd "$WORK/pinned-demo"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
  -subj '/CN=demo CA' -days 30 -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr -subj '/CN=localhost' 2>/dev/null
printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 7 -extfile leaf.ext -out leaf.pem 2>/dev/null
TLS_PORT=$(free_port)
openssl s_server -accept "127.0.0.1:$TLS_PORT" -cert leaf.pem -key leaf.key -quiet -www >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$TLS_PORT") 2>/dev/null && break; sleep 0.1; done

LEAF=$(openssl x509 -in leaf.pem -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)
put_pins() {
  curl -sS -o /dev/null -w '%{http_code}' -X PUT "$SERVER/admin/hosts/localhost" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' \
    -d "{\"pins\": [{\"sha256\": \"$1\", \"role\": \"current\"}, {\"sha256\": \"$2\", \"role\": \"backup\"}]}"
}
status=$(put_pins "$LEAF" "$(openssl rand 32 | base64)")
[ "$status" = 201 ] || fail "publishing the pins answered $status"
