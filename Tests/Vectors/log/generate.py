#!/usr/bin/env python3
"""Writes the shared transparency-log vectors of PROTOCOL §7.4 (issue 24): a C2SP tlog-policy, documents, C2SP
tlog-proofs, signed checkpoints and tlog-tiles, plus manifest.json naming, for each case, the inputs and the decision
both clients must reach (accepted with the checkpoint kept / refused with a LogError code / fork). An implementation
of its own (RFC 6962 hashing, C2SP signed-note and cosignature/v1 over PyPI's `cryptography`), so the vectors are not
made by either client under test. Tests/TransparencyLogTests/LogVectorTests.swift runs them through the Swift
TransparencyLog, clients/jvm's LogVectorTest through the JVM client.

Keys come from fixed seeds and Ed25519 is deterministic: a re-run rewrites the same files.
A case's "tiles" folder holds the tiles of its log's current tree only (full tiles and the partial ones of that
size), as a server or mirror serves them; a reader that needs an older partial tile takes the first hashes of the
full (or larger) one. Run: python3 Tests/Vectors/log/generate.py
"""
import base64, hashlib, json, os, shutil, struct

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGIN = "pins.example.com/log"
TIME = 1_780_000_000


def sha(data):
    return hashlib.sha256(data).digest()


def b64(data):
    return base64.b64encode(data).decode()


class Signer:
    def __init__(self, name, kind, seed):
        self.name, self.kind = name, kind
        self.private = ed25519.Ed25519PrivateKey.from_private_bytes(sha(b"pinset log vector " + seed.encode()))
        self.raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.id = sha(name.encode() + b"\n" + bytes([kind]) + self.raw)[:4]

    def vkey(self):
        return "%s+%s+%s" % (self.name, self.id.hex(), b64(bytes([self.kind]) + self.raw))

    def line(self, text):
        if self.kind == 0x01:
            signature = self.private.sign(text)
        else:
            message = b"cosignature/v1\ntime %d\n" % TIME + text
            signature = struct.pack(">Q", TIME) + self.private.sign(message)
        return "\u2014 %s %s\n" % (self.name, b64(self.id + signature))


def leaf(entry):
    return sha(b"\x00" + entry)


def node(left, right):
    return sha(b"\x01" + left + right)


def mth(hashes):
    if len(hashes) == 1:
        return hashes[0]
    k = 1 << ((len(hashes) - 1).bit_length() - 1)
    return node(mth(hashes[:k]), mth(hashes[k:]))


def path(m, hashes):
    """RFC 9162 §2.1.3.1 inclusion proof of leaf m."""
    if len(hashes) == 1:
        return []
    k = 1 << ((len(hashes) - 1).bit_length() - 1)
    if m < k:
        return path(m, hashes[:k]) + [mth(hashes[k:])]
    return path(m - k, hashes[k:]) + [mth(hashes[:k])]


def subproof(m, hashes, complete):
    """RFC 9162 §2.1.4.1 consistency proof."""
    n = len(hashes)
    if m == n:
        return [] if complete else [mth(hashes)]
    k = 1 << ((n - 1).bit_length() - 1)
    if m <= k:
        return subproof(m, hashes[:k], complete) + [mth(hashes[k:])]
    return subproof(m - k, hashes[k:], False) + [mth(hashes[:k])]


def checkpoint_text(entries, origin=ORIGIN, root=None):
    hashes = [leaf(e) for e in entries]
    return ("%s\n%d\n%s\n" % (origin, len(entries), b64(root or mth(hashes)))).encode()


def note(text, signers):
    return text + b"\n" + "".join(s.line(text) for s in signers).encode()


def proof(entries, index, signed_note):
    hashes = [leaf(e) for e in entries]
    lines = ["c2sp.org/tlog-proof@v1", "index %d" % index] + [b64(h) for h in path(index, hashes)]
    return ("\n".join(lines) + "\n\n").encode() + signed_note


def tile_index(n):
    groups = ["%03d" % (n % 1000)]
    n //= 1000
    while n:
        groups.insert(0, "x%03d" % (n % 1000))
        n //= 1000
    return "/".join(groups)


def write_tiles(folder, entries):
    """Every tile (C2SP tlog-tiles, height 8) of the tree of len(entries), partial ones with the tree's width."""
    level = [leaf(e) for e in entries]
    number = 0
    while level:
        for start in range(0, len(level), 256):
            hashes = level[start:start + 256]
            name = "tile/%d/%s" % (number, tile_index(start // 256)) + ("" if len(hashes) == 256 else ".p/%d" % len(hashes))
            write(os.path.join(folder, name), b"".join(hashes))
        level = [mth(level[i:i + 256]) for i in range(0, len(level) - len(level) % 256, 256)]
        number += 1


def document(host, version):
    """A log entry standing for another host's document (any bytes will do)."""
    return json.dumps({"host": host, "version": version}, separators=(",", ":")).encode()


def signed_document(version):
    """A pin document (PROTOCOL §2) for api.example.com signed by ../manifest.json's S1, valid at its "now"
    (2026-06-01), so the JVM updater's tests can serve it with its proof."""
    key = JWKKey("signing-1")
    payload = {"enforce": True, "expiresAt": "2026-06-08T00:00:00Z", "host": "api.example.com",
               "includeSubdomains": False, "issuedAt": "2026-05-31T23:00:00Z", "version": version,
               "pins": [{"role": "current", "sha256": b64(b"\x01" * 32), "type": "spki"},
                        {"role": "backup", "sha256": b64(b"\x02" * 32), "type": "spki"}]}
    protected = b64u(canonical({"alg": "EdDSA", "kid": key.kid, "typ": "pinset+jws"}))
    encoded = b64u(canonical(payload))
    signature = b64u(key.private.sign((protected + "." + encoded).encode()))
    return json.dumps({"protected": protected, "payload": encoded, "signature": signature},
                      separators=(",", ":")).encode()


def write(relative, data):
    full = os.path.join(HERE, relative)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)
    return "log/" + relative


# Trust documents with `logKeys` (PROTOCOL §7.1: checked like signingKeys), as ../generate.py makes trust documents:
# the same seeds, so "R1" and "S1" are the keys of ../manifest.json.

def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


class JWKKey:
    def __init__(self, name=None, raw_private=None):
        self.private = ed25519.Ed25519PrivateKey.from_private_bytes(raw_private or sha(b"pinset vector " + name.encode()))
        self.raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.x = b64u(self.raw)
        self.kid = b64u(sha(canonical({"crv": "Ed25519", "kty": "OKP", "x": self.x})))

    def jwk(self):
        return {"crv": "Ed25519", "kid": self.kid, "kty": "OKP", "x": self.x}


def trust_doc(log_keys, edit=None):
    root, signing = JWKKey("root-1"), JWKKey("signing-1")
    payload = {"expiresAt": "2026-08-30T00:00:00Z", "issuedAt": "2026-05-31T00:00:00Z", "rootKeys": [root.jwk()],
               "rootThreshold": 1, "signingKeys": [signing.jwk()], "version": 1}
    if log_keys is not None:
        payload["logKeys"] = log_keys
    if edit:
        edit(payload)
    encoded = b64u(canonical(payload))
    protected = b64u(canonical({"alg": "EdDSA", "kid": root.kid, "typ": "pinset-trust+jws"}))
    signature = b64u(root.private.sign((protected + "." + encoded).encode()))
    return json.dumps({"payload": encoded, "signatures": [{"protected": protected, "signature": signature}]},
                      separators=(",", ":")).encode()


def trust_cases(log):
    """trustWalk cases of ../manifest.json's shape (root R1, threshold 1), expecting the number of log keys too."""
    log_jwk = JWKKey(raw_private=sha(b"pinset log vector log")).jwk()
    assert JWKKey(raw_private=sha(b"pinset log vector log")).raw == log.raw
    many = [JWKKey(raw_private=sha(b"pinset log vector many %d" % i)).jwk() for i in range(257)]
    cases = []

    def case(name, data, expect):
        cases.append({"name": name, "kind": "trustWalk", "rootKeys": ["R1"], "threshold": 1,
                      "documents": [write("trust/%s-1.json" % name, data)], "expect": expect})

    case("trust-log-keys", trust_doc([log_jwk]), {"version": 1, "logKeys": 1})
    case("trust-log-keys-absent", trust_doc(None), {"version": 1, "logKeys": 0})
    case("trust-log-keys-null", trust_doc(None, lambda p: p.update(logKeys=None)), {"version": 1, "logKeys": 0})
    case("trust-log-keys-empty", trust_doc([]), {"version": 1, "logKeys": 0})
    case("trust-log-keys-without-kid", trust_doc([{k: v for k, v in log_jwk.items() if k != "kid"}]),
         {"version": 1, "logKeys": 1})
    case("trust-log-keys-256", trust_doc(many[:256]), {"version": 1, "logKeys": 256})
    case("trust-log-keys-257", trust_doc(many), {"reject": "malformed"})
    case("trust-log-key-kid-not-thumbprint", trust_doc([dict(log_jwk, kid=many[0]["kid"])]), {"reject": "malformed"})
    case("trust-log-key-not-ed25519", trust_doc([dict(log_jwk, crv="X25519")]), {"reject": "malformed"})
    case("trust-log-key-x-not-32-bytes", trust_doc([dict(log_jwk, x=b64u(log.raw[:31]))]), {"reject": "malformed"})
    case("trust-log-keys-not-an-array", trust_doc(log_jwk), {"reject": "malformed"})
    case("trust-log-keys-member-not-a-string", trust_doc([dict(log_jwk, kty=1)]), {"reject": "malformed"})
    return cases


def rotation(w1, w2):
    """A log key named by a trust document's logKeys (PROTOCOL §7.1) and not by the policy: a log signed with it,
    holding trust version 1 then the pin document, cosigned by w1 and w2. "named": trust version 1 lists the key, so
    its own proof (checked under the state it makes) and the pin document's verify; "unnamed": it does not, so
    neither does (unsigned)."""
    rotated = Signer(ORIGIN, 0x01, "log-rotated")
    rotated_jwk = JWKKey(raw_private=sha(b"pinset log vector log-rotated")).jwk()
    out = {}
    for name, log_keys in (("named", [rotated_jwk]), ("unnamed", None)):
        trust = trust_doc(log_keys)
        entries = [trust, signed_document(3)]
        signed = note(checkpoint_text(entries), [rotated, w1, w2])
        out[name] = {
            "trust": write("rotation/%s/trust-1.json" % name, trust),
            "trustProof": write("rotation/%s/trust-1.proof" % name, proof(entries, 0, signed)),
            "document": write("rotation/%s/api.example.com.json" % name, entries[1]),
            "documentProof": write("rotation/%s/api.example.com.proof" % name, proof(entries, 1, signed)),
        }
    return out


def read_note(path):
    with open(os.path.join(os.path.dirname(HERE), path), "rb") as f:
        return f.read()


def main():
    for name in ("documents", "proofs", "notes", "tiles", "trust", "rotation"):
        shutil.rmtree(os.path.join(HERE, name), ignore_errors=True)
    log = Signer(ORIGIN, 0x01, "log")
    impostor = Signer(ORIGIN, 0x01, "impostor")  # the log's name, another key: an unknown key ID
    other = Signer("other.example/log", 0x01, "other")
    w1, w2, w3 = (Signer("w%d.example" % i, 0x04, "w%d" % i) for i in (1, 2, 3))
    policy = write("policy.txt", (
        "# The vectors' tlog-policy: the log, two witnesses, both must cosign (w3 is unknown to it).\n"
        "log %s\nwitness w1 %s\nwitness w2 %s\ngroup both all w1 w2\nquorum both\n" % (log.vkey(), w1.vkey(), w2.vkey())
    ).encode())

    target = signed_document(3)
    honest = [document("host%d.example" % i, 1) for i in range(41)] + [target] \
        + [document("host%d.example" % i, 1) for i in range(42, 300)]
    rogue_target = signed_document(666)  # signed with the stolen key, shown to one victim
    rogue = honest[:41] + [rogue_target] + [document("rogue%d.example" % i, 1) for i in range(42, 300)]
    write_tiles("tiles/honest", honest)
    write_tiles("tiles/rogue", rogue)
    doc = write("documents/api.example.com-3.json", target)
    other_doc = write("documents/api.example.com-4.json", signed_document(4))
    rogue_doc = write("documents/api.example.com-666.json", rogue_target)

    small = checkpoint_text(honest[:42])
    large = checkpoint_text(honest)
    small_note = note(small, [log, w1, w2])
    large_note = note(large, [log, w1, w2])
    rogue_note = note(checkpoint_text(rogue), [log])
    notes = {
        "small": write("notes/honest-42.note", small_note),
        "large": write("notes/honest-300.note", large_note),
        "rogue": write("notes/rogue-300.note", rogue_note),
        "older": write("notes/honest-20.note", note(checkpoint_text(honest[:20]), [log, w1, w2])),
        # A rogue checkpoint smaller than the honest 300 (issue 35): the stolen log key, cosigned as if witnessed.
        "rogueSmall": write("notes/rogue-42.note", note(checkpoint_text(rogue[:42]), [log, w1, w2])),
    }
    bad_log = bytearray(small_note)
    at = small_note.index(("\u2014 " + ORIGIN + " ").encode()) + len(("\u2014 " + ORIGIN + " ").encode()) + 20
    bad_log[at] = ord("A") if bad_log[at] != ord("A") else ord("B")
    wrong_root = checkpoint_text(honest[:42], root=mth([leaf(e) for e in rogue[:42]]))

    def case(name, document_path, proof_bytes, expect, largest=None, tiles=None):
        entry = {"name": name, "document": document_path, "proof": write("proofs/%s.proof" % name, proof_bytes),
                 "expect": expect}
        if largest:
            entry["largest"] = notes[largest]
        if tiles:
            entry["tiles"] = "log/tiles/" + tiles
        return entry

    accepted = lambda size: {"decision": "accepted", "largestSize": size}
    refused = lambda code: {"decision": "refused", "code": code}
    cases = [
        case("valid-proof", doc, proof(honest[:42], 41, small_note), accepted(42)),
        case("wrong-leaf", other_doc, proof(honest[:42], 41, small_note), refused("notIncluded")),
        case("wrong-root", doc, proof(honest[:42], 41, note(wrong_root, [log, w1, w2])), refused("notIncluded")),
        case("wrong-index", doc, proof(honest[:42], 40, small_note).replace(b"index 40", b"index 41", 1),
             refused("notIncluded")),
        case("bad-log-signature", doc, proof(honest[:42], 41, bytes(bad_log)), refused("badSignature")),
        case("bad-cosignature", doc, proof(honest[:42], 41, note(small, [log, w1]) + w2.line(large).encode()),
             refused("badSignature")),
        case("quorum-not-met", doc, proof(honest[:42], 41, note(small, [log, w1, w3])), refused("quorumNotMet")),
        case("unknown-witness-ignored", doc, proof(honest[:42], 41, note(small, [log, w3, w1, w2])), accepted(42)),
        case("unknown-origin", doc, proof(honest[:42], 41, note(checkpoint_text(honest[:42], "other.example/log"),
                                                              [other, w1, w2])), refused("unknownOrigin")),
        case("unknown-log-key", doc, proof(honest[:42], 41, note(small, [impostor, w1, w2])), refused("unsigned")),
        case("consistent-larger-checkpoint", doc, proof(honest, 41, large_note), accepted(300), "small", "honest"),
        case("older-than-largest", doc, proof(honest[:42], 41, small_note), accepted(300), "large", "honest"),
        # The tiles of the tree of 42 are gone (only the tree of 300's are served): the first 42 hashes of the full
        # tile stand in for tile/0/000.p/42, as a client reads them.
        case("consistent-from-full-tile", doc, proof(honest[:42], 41, small_note), accepted(42), "older", "honest"),
        case("same-checkpoint-again", doc, proof(honest[:42], 41, small_note), accepted(42), "small", "honest"),
        dict(case("fork", rogue_doc, proof(rogue, 41, rogue_note), {"decision": "fork"}, "small", "rogue"),
             expect={"decision": "fork", "kept": notes["small"], "refused": notes["rogue"]}),
        dict(case("fork-same-size", rogue_doc, proof(rogue, 41, rogue_note), {}, "large", "rogue"),
             expect={"decision": "fork", "kept": notes["large"], "refused": notes["rogue"]}),
        case("rogue-log-without-history", rogue_doc, proof(rogue, 41, rogue_note), refused("quorumNotMet")),
        # Issue 35 (PROTOCOL §7.4): a smaller checkpoint must be consistent with the largest held too. The held
        # tree's tiles give another root at its size: a fork, whichever checkpoint is larger.
        dict(case("smaller-fork", rogue_doc, proof(rogue[:42], 41, read_note(notes["rogueSmall"])), {}, "large",
                  "honest"),
             expect={"decision": "fork", "kept": notes["large"], "refused": notes["rogueSmall"]}),
        # Tiles that do not lead to the held checkpoint's root show nothing: no consistency proof, refused (not a
        # fork: a wrong tile is no evidence against the log).
        case("smaller-without-proof", doc, proof(honest[:42], 41, small_note), refused("missingHash"), "large",
             "rogue"),
        case("larger-without-proof", doc, proof(honest, 41, large_note), refused("missingHash"), "small", "rogue"),
        case("proof-malformed", doc, b"c2sp.org/tlog-proof@v1\nindex 041\n\n" + small_note, refused("malformed")),
    ]
    manifest = {"policy": policy, "origin": ORIGIN, "cases": cases, "trustCases": trust_cases(log),
                "rotation": rotation(w1, w2)}
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
