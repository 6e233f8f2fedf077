#!/usr/bin/env python3
"""Writes the shared acceptance vectors of PROTOCOL §5/§6.2 (issue 23): signed pin documents, trust documents and
certificates made with real Ed25519/ECDSA keys (PyPI's `cryptography`), plus manifest.json naming, for each case,
the inputs and the decision both clients must reach. Tests/PinSetClientTests/SharedVectorTests.swift runs them
through the Swift client, clients/jvm's VectorTest through the JVM client.

Keys come from fixed seeds and Ed25519 is deterministic, so a re-run rewrites the same documents (the ECDSA
certificate signatures differ between runs; their keys do not). Run: python3 Tests/Vectors/generate.py
"""
import base64, datetime, hashlib, json, os, shutil

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.x509.oid import NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc)
HOUR, DAY = datetime.timedelta(hours=1), datetime.timedelta(days=1)


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def t(when):
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


class Key:
    def __init__(self, name):
        self.private = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"pinset vector " + name.encode()).digest())
        self.raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.x = b64u(self.raw)
        self.kid = b64u(hashlib.sha256(canonical({"crv": "Ed25519", "kty": "OKP", "x": self.x})).digest())

    def jwk(self):
        return {"crv": "Ed25519", "kid": self.kid, "kty": "OKP", "x": self.x}

    def sign(self, data):
        return self.private.sign(data)


S1, S2 = Key("signing-1"), Key("signing-2")
R1, R2, R3 = Key("root-1"), Key("root-2"), Key("root-3")
OUT = {"documents": {}, "trust": {}}
manifest = {"now": t(NOW), "keys": {}, "cases": []}
for name, key in [("S1", S1), ("S2", S2), ("R1", R1), ("R2", R2), ("R3", R3)]:
    manifest["keys"][name] = key.x


def write(folder, name, data):
    path = os.path.join(HERE, folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return folder + "/" + name


def pin_payload(host="api.example.com", version=3, issued=NOW - HOUR, expires=NOW + 7 * DAY, pins=None, **extra):
    body = {"enforce": True, "expiresAt": t(expires), "host": host, "includeSubdomains": False, "issuedAt": t(issued),
            "pins": pins if pins is not None else [
                {"role": "current", "sha256": base64.b64encode(b"\x01" * 32).decode(), "type": "spki"},
                {"role": "backup", "sha256": base64.b64encode(b"\x02" * 32).decode(), "type": "spki"}],
            "version": version}
    body.update(extra)
    return body


def jws(payload, key=S1, kid=None, alg="EdDSA", typ="pinset+jws", header=None, tamper=None, signer=None):
    if header is None:
        header = {"alg": alg, "kid": kid if kid is not None else key.kid, "typ": typ}
        header = {k: v for k, v in header.items() if v is not None}
    protected = b64u(canonical(header))
    encoded = b64u(payload if isinstance(payload, bytes) else canonical(payload))
    signature = b64u((signer or key).sign((protected + "." + encoded).encode()))
    doc = {"protected": protected, "payload": encoded, "signature": signature}
    if tamper:
        tamper(doc)
    return json.dumps(doc, separators=(",", ":")).encode()


def trust_doc(version, roots, signing, signers, threshold=1, issued=NOW - DAY, expires=NOW + 90 * DAY, alg="EdDSA",
              typ="pinset-trust+jws", extra_header=None, jwk_edit=None):
    payload = {"expiresAt": t(expires), "issuedAt": t(issued), "rootKeys": [k.jwk() for k in roots],
               "rootThreshold": threshold, "signingKeys": [k.jwk() for k in signing], "version": version}
    if jwk_edit:
        jwk_edit(payload)
    encoded = b64u(canonical(payload))
    signatures = []
    for signer in signers:
        header = {"alg": alg, "kid": signer.kid, "typ": typ}
        header.update(extra_header or {})
        protected = b64u(canonical(header))
        signatures.append({"protected": protected, "signature": b64u(signer.sign((protected + "." + encoded).encode()))})
    return json.dumps({"payload": encoded, "signatures": signatures}, separators=(",", ":")).encode()


def document_case(name, data, expect, host="api.example.com", trusted=("S1",), last=None, trust=None):
    case = {"name": name, "kind": "document", "host": host, "trustedKeys": list(trusted),
            "document": write("documents", name + ".json", data), "expect": expect}
    if last:
        case["lastAccepted"] = {"version": last[0], "issuedAt": t(last[1])}
    if trust:
        case["trust"] = trust
    manifest["cases"].append(case)


def accept(version):
    return {"accept": True, "version": version}


def reject(code):
    return {"reject": code}


for folder in ("documents", "trust", "certs"):
    shutil.rmtree(os.path.join(HERE, folder), ignore_errors=True)
    os.makedirs(os.path.join(HERE, folder))

# --- PROTOCOL §5, steps 1-6 -----------------------------------------------------------------------------------
document_case("valid", jws(pin_payload()), accept(3))
document_case("alg-ed25519-rfc9864", jws(pin_payload(), alg="Ed25519"), accept(3))
document_case("host-given-uppercase-with-dot", jws(pin_payload()), accept(3), host="API.Example.com.")


def forge(doc):
    doc["payload"] = b64u(canonical(pin_payload(version=9)))


document_case("forged-payload", jws(pin_payload(), tamper=forge), reject("badSignature"))
document_case("signed-by-untrusted-key", jws(pin_payload(), key=S2), reject("unknownKey"))
document_case("trusted-kid-signed-by-other-key", jws(pin_payload(), kid=S1.kid, signer=S2), reject("badSignature"))
document_case("wrong-host", jws(pin_payload(host="other.example.com")), reject("hostMismatch"))
document_case("parent-host-document", jws(pin_payload(host="example.com")), reject("hostMismatch"))
document_case("expired", jws(pin_payload(issued=NOW - 8 * DAY, expires=NOW - HOUR)), reject("expired"))
document_case("expired-within-skew", jws(pin_payload(issued=NOW - 8 * DAY, expires=NOW - datetime.timedelta(seconds=60))), accept(3))
document_case("expired-at-skew-edge", jws(pin_payload(issued=NOW - 8 * DAY, expires=NOW - datetime.timedelta(seconds=300))), reject("expired"))
document_case("not-yet-valid", jws(pin_payload(issued=NOW + HOUR)), reject("notYetValid"))
document_case("issued-within-skew", jws(pin_payload(issued=NOW + datetime.timedelta(seconds=200))), accept(3))
document_case("rolled-back-version", jws(pin_payload()), reject("rollback"), last=(4, NOW - 2 * HOUR))
document_case("rolled-back-resigning", jws(pin_payload()), reject("rollback"), last=(3, NOW - 30 * 60 * datetime.timedelta(seconds=1)))
document_case("same-version-newer-resigning", jws(pin_payload()), accept(3), last=(3, NOW - 2 * HOUR))
document_case("newer-version", jws(pin_payload()), accept(3), last=(2, NOW))
document_case("alg-none", jws(pin_payload(), alg="none"), reject("unsupportedAlgorithm"))
document_case("alg-hs256", jws(pin_payload(), alg="HS256"), reject("unsupportedAlgorithm"))
document_case("typ-jwt", jws(pin_payload(), typ="JWT"), reject("wrongType"))
document_case("typ-missing", jws(pin_payload(), typ=None), reject("wrongType"))
document_case("kid-missing", jws(pin_payload(), header={"alg": "EdDSA", "typ": "pinset+jws"}), reject("unknownKey"))
big = json.loads(jws(pin_payload()))
document_case("too-large", (json.dumps(big) + " " * (64 * 1024)).encode(), reject("tooLarge"))
document_case("not-json", b"<html>502 Bad Gateway</html>", reject("malformedJSON"))
document_case("signature-member-missing", jws(pin_payload(), tamper=lambda d: d.pop("signature")), reject("malformedJSON"))
document_case("payload-padded-base64", jws(pin_payload(), tamper=lambda d: d.update(payload=d["payload"] + "=")), reject("malformedJSON"))
document_case("header-not-json", jws(pin_payload(), tamper=lambda d: d.update(protected=b64u(b"not json"))), reject("malformedJSON"))
document_case("signed-payload-without-pins", jws({k: v for k, v in pin_payload().items() if k != "pins"}), reject("malformedJSON"))
document_case("signed-payload-host-uppercase", jws(pin_payload(host="API.example.com")), reject("malformedJSON"))
document_case("signed-pin-not-32-bytes", jws(pin_payload(pins=[{"sha256": base64.b64encode(b"\x01" * 31).decode()}])), reject("malformedJSON"))
document_case("signed-version-zero", jws(pin_payload(version=0)), reject("malformedJSON"))
document_case("signature-63-bytes", jws(pin_payload(), tamper=lambda d: d.update(signature=b64u(b"\x00" * 63))), reject("badSignature"))
document_case("signature-not-base64url", jws(pin_payload(), tamper=lambda d: d.update(signature="***")), reject("badSignature"))
document_case("unknown-members-ignored", jws(pin_payload(note="extra member")), accept(3))

# Edges where two JSON readers could differ; the expected answers are what both clients were seen to do.
dup = canonical(pin_payload()).replace(b'"version":3}', b'"version":3,"version":9}')
# PROTOCOL §5 step 1 (issue 35): a repeated member is refused wherever it is (the names say what parsers did before).
document_case("duplicate-member-first-wins", jws(dup), reject("malformedJSON"))
document_case("duplicate-jws-member-first-wins", jws(pin_payload()).replace(b'}', b',"payload":"e30"}'),
              reject("malformedJSON"))
document_case("duplicate-header-member-first-wins", jws(pin_payload(), header=None, tamper=lambda d: d.update(
    protected=b64u(('{"alg":"EdDSA","kid":"%s","typ":"pinset+jws","alg":"none"}' % S1.kid).encode()))), reject("malformedJSON"))
document_case("version-written-3.0", jws(canonical(pin_payload()).replace(b'"version":3}', b'"version":3.0}')), accept(3))
document_case("version-written-3e0", jws(canonical(pin_payload()).replace(b'"version":3}', b'"version":3e0}')), accept(3))
document_case("version-written-1e20", jws(canonical(pin_payload()).replace(b'"version":3}', b'"version":1e20}')), reject("malformedJSON"))
document_case("version-written-3.5", jws(canonical(pin_payload()).replace(b'"version":3}', b'"version":3.5}')), reject("malformedJSON"))
document_case("version-as-string", jws(canonical(pin_payload()).replace(b'"version":3}', b'"version":"3"}')), reject("malformedJSON"))
document_case("report-uri-null", jws(pin_payload(reportUri=None)), accept(3))
document_case("host-written-with-escape", jws(canonical(pin_payload()).replace(b'"host":"api', b'"host":"\\u0061pi')), accept(3))
document_case("kid-null", jws(pin_payload(), header={"alg": "EdDSA", "kid": None, "typ": "pinset+jws"}), reject("unknownKey"))
document_case("typ-number", jws(pin_payload(), header={"alg": "EdDSA", "kid": S1.kid, "typ": 5}), reject("malformedJSON"))
document_case("alg-missing", jws(pin_payload(), header={"kid": S1.kid, "typ": "pinset+jws"}), reject("malformedJSON"))
document_case("body-with-blanks-around", b"\n  " + jws(pin_payload()) + b"\n", accept(3))
document_case("pin-expires-null", jws(pin_payload(pins=[dict(spki, expiresAt=None) for spki in pin_payload()["pins"]])), accept(3))
document_case("issued-at-with-offset", jws(pin_payload(issued=NOW - HOUR) | {"issuedAt": t(NOW - HOUR).replace("Z", "+00:00")}), accept(3))
lone = canonical(pin_payload()).replace(b'"role":"current"', b'"comment":"\\ud800","role":"current"', 1)
document_case("comment-lone-surrogate", jws(lone), reject("malformedJSON"))
pair = canonical(pin_payload()).replace(b'"role":"current"', b'"comment":"\\ud83d\\ude00","role":"current"', 1)
document_case("comment-surrogate-pair", jws(pair), accept(3))
document_case("comment-nul-escape", jws(canonical(pin_payload()).replace(b'"role":"current"', b'"comment":"a\\u0000b","role":"current"', 1)), accept(3))
document_case("escape-with-arabic-indic-digits", jws(canonical(pin_payload()).replace(b'"role":"current"', '"comment":"\\u\u0660\u0660\u0666\u0661","role":"current"'.encode(), 1)), reject("malformedJSON"))
document_case("issued-at-not-rfc3339", jws(pin_payload() | {"issuedAt": "2026-05-31 23:00:00"}), reject("malformedJSON"))

# --- Pin documents under a trust state (PROTOCOL §6.2) ----------------------------------------------------------
T1 = write("trust", "chain-v1.json", trust_doc(1, [R1], [S2], [R1]))
T1_EXPIRED = write("trust", "chain-v1-expired.json", trust_doc(1, [R1], [S2], [R1], issued=NOW - 100 * DAY, expires=NOW - DAY))
roots = {"rootKeys": ["R1"], "threshold": 1}
document_case("delegated-signing-key", jws(pin_payload(), key=S2), accept(3), trusted=(), trust=dict(roots, chain=[T1]))
document_case("delegated-key-trust-expired", jws(pin_payload(), key=S2), reject("trustExpired"), trusted=(), trust=dict(roots, chain=[T1_EXPIRED]))
document_case("shipped-key-while-trust-expired", jws(pin_payload()), accept(3), trusted=("S1",), trust=dict(roots, chain=[T1_EXPIRED]))
document_case("key-not-delegated", jws(pin_payload()), reject("unknownKey"), trusted=(), trust=dict(roots, chain=[T1]))
document_case("root-keys-only-no-trust-yet", jws(pin_payload(), key=S2), reject("unknownKey"), trusted=(), trust=dict(roots, chain=[]))


# --- Trust documents (PROTOCOL §6.2 steps 1-5) ------------------------------------------------------------------
def walk_case(name, documents, expect, root_keys=("R1",), threshold=1, max_steps=None):
    paths = []
    for index, data in enumerate(documents):
        paths.append(data if isinstance(data, str) else write("trust", "%s-%d.json" % (name, index + 1), data))
    case = {"name": name, "kind": "trustWalk", "rootKeys": list(root_keys), "threshold": threshold,
            "documents": paths, "expect": expect}
    if max_steps:
        case["maxSteps"] = max_steps
    manifest["cases"].append(case)


V2 = trust_doc(2, [R1], [S1], [R1])
walk_case("trust-first-version", [T1], accept(1))
walk_case("trust-two-versions", [T1, V2], accept(2))
walk_case("trust-expired-intermediate", [T1_EXPIRED, V2], accept(2))
walk_case("trust-root-rotation", [trust_doc(1, [R2], [S1], [R1, R2]), trust_doc(2, [R2], [S1], [R2])], accept(2))
walk_case("trust-signed-by-unknown-root", [trust_doc(1, [R2], [S1], [R2])], reject("thresholdNotMet"))
walk_case("trust-new-root-did-not-sign", [trust_doc(1, [R2], [S1], [R1])], reject("newRootsDidNotSign"))
walk_case("trust-version-skipped", [V2], reject("versionNotNext"))
walk_case("trust-rolled-back", [T1, trust_doc(1, [R1], [S1], [R1])], reject("rollback"))
walk_case("trust-too-many-steps", [T1, V2, trust_doc(3, [R1], [S1], [R1])], reject("tooManySteps"), max_steps=2)
walk_case("trust-expired", [T1_EXPIRED], reject("expired"))
walk_case("trust-not-yet-valid", [trust_doc(1, [R1], [S1], [R1], issued=NOW + DAY)], reject("notYetValid"))
walk_case("trust-alg-ed25519", [trust_doc(1, [R1], [S1], [R1], alg="Ed25519")], reject("unsupportedAlgorithm"))
walk_case("trust-wrong-typ", [trust_doc(1, [R1], [S1], [R1], typ="pinset+jws")], reject("wrongType"))
walk_case("trust-extra-header-member", [trust_doc(1, [R1], [S1], [R1], extra_header={"crit": "x"})], reject("malformedHeader"))
walk_case("trust-kid-not-thumbprint", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p["signingKeys"][0].update(kid=R1.kid))], reject("malformed"))
walk_case("trust-threshold-zero", [trust_doc(1, [R1], [S1], [R1], threshold=0)], reject("malformed"))
walk_case("trust-threshold-above-keys", [trust_doc(1, [R1], [S1], [R1], threshold=2)], reject("malformed"))
walk_case("trust-not-json", [b"{\"payload\":"], reject("malformed"))
walk_case("trust-too-large", [trust_doc(1, [R1], [S1], [R1]) + b" " * (64 * 1024)], reject("tooLarge"))
walk_case("trust-65-signatures", [trust_doc(1, [R1], [S1], [R1] * 65)], reject("malformed"))
walk_case("trust-threshold-two-met", [trust_doc(1, [R1, R2], [S1], [R1, R2], threshold=2)], accept(1), root_keys=("R1", "R2"), threshold=2)
walk_case("trust-threshold-two-one-signer", [trust_doc(1, [R1, R2], [S1], [R2], threshold=1)], reject("thresholdNotMet"), root_keys=("R1", "R2"), threshold=2)
walk_case("trust-same-root-twice-counts-once", [trust_doc(1, [R1, R2], [S1], [R1, R1], threshold=1)], reject("thresholdNotMet"), root_keys=("R1", "R2"), threshold=2)
walk_case("trust-stray-signature-ignored", [trust_doc(1, [R1], [S1], [R3, R1])], accept(1))
walk_case("trust-jwk-without-kty", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p["signingKeys"][0].pop("kty"))], reject("malformed"))
walk_case("trust-jwk-without-kid", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p["signingKeys"][0].pop("kid"))], accept(1))
walk_case("trust-jwk-with-alg-use", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p["signingKeys"][0].update(alg="EdDSA", use="sig"))], accept(1))
walk_case("trust-jwk-rsa", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p["signingKeys"][0].update(kty="RSA"))], reject("malformed"))
walk_case("trust-threshold-written-1.0", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(rootThreshold=1.0))], accept(1))
walk_case("trust-version-as-string", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(version="1"))], reject("malformed"))
walk_case("trust-kid-number-in-header", [trust_doc(1, [R1], [S1], [R1], extra_header={"kid": 7})], reject("malformedHeader"))
walk_case("trust-no-signatures", [json.dumps({"payload": b64u(b"{}"), "signatures": []}).encode()], reject("malformed"))

# logKeys (PROTOCOL §7.1): optional, checked by the same rules as signingKeys (thumbprint kids, at most 256 keys).
L1 = Key("log-1")
walk_case("trust-log-keys", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(logKeys=[L1.jwk()]))], accept(1))
walk_case("trust-log-keys-empty", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(logKeys=[]))], accept(1))
walk_case("trust-log-key-kid-not-thumbprint", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(logKeys=[dict(L1.jwk(), kid=R1.kid)]))], reject("malformed"))
walk_case("trust-log-key-rsa", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(logKeys=[dict(L1.jwk(), kty="RSA")]))], reject("malformed"))
LOG_257 = [Key("log-many-%d" % n).jwk() for n in range(257)]
walk_case("trust-257-log-keys", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(logKeys=LOG_257))], reject("malformed"))
walk_case("trust-256-log-keys", [trust_doc(1, [R1], [S1], [R1], jwk_edit=lambda p: p.update(logKeys=LOG_257[:256]))], accept(1))


# --- Trust updates through the updater: /trust and /trust/{n} (PROTOCOL §6.2) -----------------------------------
def update_case(name, in_force, served, expect):
    manifest["cases"].append({"name": name, "kind": "trustUpdate", "rootKeys": ["R1"], "threshold": 1,
                              "inForce": in_force, "served": served, "expect": expect})


V2_PATH = write("trust", "update-v2.json", V2)
update_case("update-walks-to-newest", [], {"/trust": V2_PATH, "/trust/1": T1, "/trust/2": V2_PATH}, accept(2))
OTHER_V1 = write("trust", "update-other-v1.json", trust_doc(1, [R1], [S1, S2], [R1]))
update_case("update-equivocation", [T1], {"/trust": OTHER_V1, "/trust/1": OTHER_V1}, {"reject": "equivocation", "version": 1})
update_case("update-rollback", [T1, V2_PATH], {"/trust": T1, "/trust/1": T1}, {"reject": "rollback", "version": 2})
V1_BAD_HEADER = write("trust", "update-v1-bad-header.json", trust_doc(1, [R1], [S1], [R1], extra_header={"x": "y"}))
update_case("update-rollback-with-bad-header", [T1, V2_PATH], {"/trust": V1_BAD_HEADER}, {"reject": "rollback", "version": 2})
update_case("update-next-with-bad-header", [], {"/trust": V1_BAD_HEADER}, {"reject": "malformedHeader", "version": 0})
update_case("update-same-version-bad-header", [T1], {"/trust": V1_BAD_HEADER}, {"reject": "malformedHeader", "version": 1})
update_case("update-unreadable", [T1], {"/trust": write("trust", "update-unreadable.json", b"[]")}, {"reject": "malformed", "version": 1})
update_case("update-same-version-unchanged", [T1], {"/trust": T1, "/trust/1": T1}, accept(1))

# --- A trust document shipped in the app (PROTOCOL §6.2: accepted without checking time; its own roots signed it) ---
def bundled_case(name, data, expect):
    path = data if isinstance(data, str) else write("trust", name + ".json", data)
    manifest["cases"].append({"name": name, "kind": "trustBundled", "document": path, "expect": expect})


bundled_case("bundled-trust", T1, accept(1))
bundled_case("bundled-trust-expired", T1_EXPIRED, accept(1))
bundled_case("bundled-trust-later-version", V2_PATH, accept(2))
bundled_case("bundled-trust-other-roots", trust_doc(1, [R2], [S1], [R2]), accept(1))
bundled_case("bundled-trust-new-root-did-not-sign", trust_doc(1, [R2], [S1], [R1]), reject("newRootsDidNotSign"))
bundled_case("bundled-trust-threshold-two-one-signer", trust_doc(1, [R1, R2], [S1], [R1], threshold=2), reject("newRootsDidNotSign"))
bundled_case("bundled-trust-wrong-typ", trust_doc(1, [R1], [S1], [R1], typ="JWT"), reject("wrongType"))
bundled_case("bundled-trust-not-json", b"trust", reject("malformed"))

# --- Evaluating chains (PROTOCOL §5, handshake rules) -----------------------------------------------------------
def ec_key(n):
    return ec.derive_private_key(n, ec.SECP256R1())


CA_KEY, A_KEY, B_KEY = ec_key(1001), ec_key(1002), ec_key(1003)


def certificate(name, key, issuer_name, issuer_key, ca):
    builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
               .public_key(key.public_key()).serial_number(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big"))
               .not_valid_before(NOW - 30 * DAY).not_valid_after(NOW + 365 * DAY)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    return builder.sign(issuer_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


CA = certificate("Vector CA", CA_KEY, "Vector CA", CA_KEY, True)
LEAF_A = certificate("a.example.com", A_KEY, "Vector CA", CA_KEY, False)
LEAF_B = certificate("b.example.com", B_KEY, "Vector CA", CA_KEY, False)
certs = {"ca": write("certs", "ca.der", CA), "a": write("certs", "leaf-a.der", LEAF_A), "b": write("certs", "leaf-b.der", LEAF_B)}


def spki_pin(key, role="current", **extra):
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    pin = {"role": role, "sha256": base64.b64encode(hashlib.sha256(der).digest()).decode(), "type": "spki"}
    pin.update(extra)
    return pin


BACKUP = {"role": "backup", "sha256": base64.b64encode(b"\x07" * 32).decode(), "type": "spki"}
sets = {
    "example.com": pin_payload("example.com", pins=[spki_pin(A_KEY), BACKUP], includeSubdomains=True),
    "report.example.org": pin_payload("report.example.org", pins=[spki_pin(A_KEY), BACKUP], enforce=False),
    "expiring.example.net": pin_payload("expiring.example.net", pins=[spki_pin(A_KEY, expiresAt=t(NOW - HOUR)), BACKUP]),
    "ca.example.net": pin_payload("ca.example.net", pins=[spki_pin(CA_KEY), BACKUP]),
    "cert.example.net": pin_payload("cert.example.net", pins=[
        {"role": "current", "sha256": base64.b64encode(hashlib.sha256(LEAF_A).digest()).decode(), "type": "certificate"}, BACKUP]),
    "example.net": pin_payload("example.net", pins=[spki_pin(B_KEY), BACKUP]),
    "stale.example.net": pin_payload("stale.example.net", pins=[spki_pin(A_KEY), BACKUP], issued=NOW - 20 * DAY, expires=NOW - 10 * DAY),
    "retired.example.net": pin_payload("retired.example.net", pins=[]),
}
installed = [write("documents", "set-" + host + ".json", jws(body)) for host, body in sets.items()]


def evaluate_case(name, host, chain, kind, allowed, options=None, noted=None):
    case = {"name": name, "kind": "evaluate", "documents": installed, "expectSets": ["missing.example.com"],
            "options": options or {}, "host": host, "chain": [certs[c] for c in chain],
            "expect": {"decision": kind, "allowed": allowed}}
    if noted:
        case["expect"]["notedHost"] = noted
    manifest["cases"].append(case)


evaluate_case("eval-leaf-matches", "example.com", ["a", "ca"], "trusted", True, noted="example.com")
evaluate_case("eval-subdomain-matches", "api.example.com", ["a", "ca"], "trusted", True, noted="example.com")
evaluate_case("eval-deep-subdomain", "x.y.example.com", ["a", "ca"], "trusted", True, noted="example.com")
evaluate_case("eval-host-case-and-dot", "Example.COM.", ["a", "ca"], "trusted", True, noted="example.com")
evaluate_case("eval-wrong-key", "example.com", ["b", "ca"], "pinMismatch", False, noted="example.com")
evaluate_case("eval-wrong-key-subdomain", "api.example.com", ["b", "ca"], "pinMismatch", False, noted="example.com")
evaluate_case("eval-report-only", "report.example.org", ["b", "ca"], "reportOnlyMismatch", True, noted="report.example.org")
evaluate_case("eval-pin-expired", "expiring.example.net", ["a", "ca"], "pinMismatch", False)
evaluate_case("eval-ca-pin", "ca.example.net", ["b", "ca"], "trusted", True)
evaluate_case("eval-certificate-pin", "cert.example.net", ["a", "ca"], "trusted", True)
evaluate_case("eval-certificate-pin-other-leaf", "cert.example.net", ["b", "ca"], "pinMismatch", False)
evaluate_case("eval-parent-without-subdomains", "api.example.net", ["a", "ca"], "hostNotPinned", True)
evaluate_case("eval-unpinned-allowed", "other.org", ["a", "ca"], "hostNotPinned", True)
evaluate_case("eval-unpinned-denied", "other.org", ["a", "ca"], "hostNotPinned", False, {"denyUnpinnedHosts": True})
evaluate_case("eval-configured-host-covered-by-parent", "missing.example.com", ["a", "ca"], "trusted", True, noted="example.com")
evaluate_case("eval-other-domain-unpinned", "missing.example.org", ["a", "ca"], "hostNotPinned", True)
evaluate_case("eval-stale-set-enforced", "stale.example.net", ["b", "ca"], "pinMismatch", False)
evaluate_case("eval-stale-set-stop-pinning", "stale.example.net", ["b", "ca"], "hostNotPinned", True, {"stopPinningStaleSets": True})
evaluate_case("eval-retired-host", "retired.example.net", ["b", "ca"], "hostNotPinned", True)
evaluate_case("eval-retired-host-denied", "retired.example.net", ["b", "ca"], "hostNotPinned", False, {"denyUnpinnedHosts": True})

# A configured host without a set: its own manifest entry with no documents at all.
for name, options, allowed in [("eval-expected-without-set", {}, False), ("eval-expected-without-set-allowed", {"allowMissingSets": True}, True)]:
    manifest["cases"].append({"name": name, "kind": "evaluate", "documents": [], "expectSets": ["missing.example.com"],
                              "options": options, "host": "missing.example.com", "chain": [certs["a"]],
                              "expect": {"decision": "setMissing", "allowed": allowed}})

with open(os.path.join(HERE, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
print("wrote %d cases to %s" % (len(manifest["cases"]), os.path.join(HERE, "manifest.json")))
