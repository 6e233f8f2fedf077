#!/usr/bin/env python3
"""Verifies a pinset document independently of the project's own code.

    verify_document.py --doc FILE --pubkey PEMFILE [--host H]

FILE is a document as `GET /pins/{host}` serves it (a flattened JWS, PROTOCOL §2), or `-` for stdin.
PEMFILE holds the server's Ed25519 public key (`openssl pkey -in key.pem -pubout`).

The signature is checked twice, by two unrelated implementations: joserfc (a JOSE library) and
the `cryptography` package's raw Ed25519 over the ASCII bytes of `protected + "." + payload`.
The protected header must be exactly {"alg":"EdDSA","kid":<kid>,"typ":"pinset+jws"} with kid the
RFC 7638 thumbprint of the public key. With --host, the payload's host must equal H.

Prints the decoded payload on stdout and exits 0 if every check passes; otherwise prints why on
stderr and exits 1.
"""

import argparse
import base64
import hashlib
import json
import re
import sys
import warnings

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")
MAX_DOCUMENT_BYTES = 64 * 1024


class Rejected(Exception):
    """The document fails a check; the message says which."""


def b64url_decode(text: str, what: str) -> bytes:
    if not isinstance(text, str) or not BASE64URL.match(text) or len(text) % 4 == 1:
        raise Rejected(f"{what} is not base64url without padding")
    decoded = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(decoded).rstrip(b"=").decode() != text:
        raise Rejected(f"{what} is not canonical base64url")
    return decoded


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def load_public_key(path: str) -> tuple[Ed25519PublicKey, bytes]:
    with open(path, "rb") as handle:
        key = serialization.load_pem_public_key(handle.read())
    if not isinstance(key, Ed25519PublicKey):
        raise Rejected(f"{path} is not an Ed25519 public key")
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return key, raw


def thumbprint(raw_public_key: bytes) -> str:
    """RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace."""
    members = {"crv": "Ed25519", "kty": "OKP", "x": b64url_encode(raw_public_key)}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True).encode("ascii")
    return b64url_encode(hashlib.sha256(canonical).digest())


def parse_document(data: bytes) -> dict:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise Rejected(f"the document is {len(data)} bytes, over the {MAX_DOCUMENT_BYTES}-byte limit")
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise Rejected(f"the document is not JSON: {error}") from None
    if not isinstance(document, dict) or set(document) != {"protected", "payload", "signature"}:
        raise Rejected("the document must be a JSON object with exactly protected, payload and signature")
    return document


def check_header(document: dict, expected_kid: str) -> None:
    try:
        header = json.loads(b64url_decode(document["protected"], "protected"))
    except ValueError:
        raise Rejected("the protected header is not JSON") from None
    if not isinstance(header, dict) or set(header) != {"alg", "kid", "typ"}:
        raise Rejected(f"the protected header must have exactly alg, kid and typ; it has {sorted(header)}")
    if header["alg"] != "EdDSA":
        raise Rejected(f"alg is {header['alg']!r}, not 'EdDSA'")
    if header["typ"] != "pinset+jws":
        raise Rejected(f"typ is {header['typ']!r}, not 'pinset+jws'")
    if header["kid"] != expected_kid:
        raise Rejected(f"kid {header['kid']!r} is not the RFC 7638 thumbprint of the given key ({expected_kid})")


def verify_with_cryptography(document: dict, key: Ed25519PublicKey) -> None:
    signature = b64url_decode(document["signature"], "signature")
    if len(signature) != 64:
        raise Rejected(f"the signature is {len(signature)} bytes, not 64")
    signing_input = (document["protected"] + "." + document["payload"]).encode("ascii")
    try:
        key.verify(signature, signing_input)
    except InvalidSignature:
        raise Rejected("cryptography: the Ed25519 signature does not verify") from None


def verify_with_joserfc(document: dict, public_pem: bytes, expected_kid: str) -> bytes:
    from joserfc import jws
    from joserfc.errors import JoseError
    from joserfc.jwk import OKPKey

    key = OKPKey.import_key(public_pem)
    if key.thumbprint() != expected_kid:
        raise Rejected(f"joserfc computes thumbprint {key.thumbprint()}, this script {expected_kid}")
    try:
        with warnings.catch_warnings():
            # joserfc warns that "EdDSA" is superseded by "Ed25519" (RFC 9864); the protocol says EdDSA.
            warnings.simplefilter("ignore")
            result = jws.deserialize_json(dict(document), key, algorithms=["EdDSA"])
    except JoseError as error:
        raise Rejected(f"joserfc rejects the document: {error.error}: {error.description}") from None
    return result.payload


def verify(data: bytes, pubkey_path: str, host: str | None) -> dict:
    key, raw = load_public_key(pubkey_path)
    with open(pubkey_path, "rb") as handle:
        public_pem = handle.read()
    expected_kid = thumbprint(raw)
    document = parse_document(data)
    check_header(document, expected_kid)
    verify_with_cryptography(document, key)
    joserfc_payload = verify_with_joserfc(document, public_pem, expected_kid)
    payload_bytes = b64url_decode(document["payload"], "payload")
    if joserfc_payload != payload_bytes:
        raise Rejected("joserfc and this script decode different payload bytes")
    try:
        payload = json.loads(payload_bytes)
    except (ValueError, UnicodeDecodeError):
        raise Rejected("the payload is not UTF-8 JSON") from None
    if not isinstance(payload, dict):
        raise Rejected("the payload is not a JSON object")
    if host is not None and payload.get("host") != host:
        raise Rejected(f"the payload is for host {payload.get('host')!r}, not {host!r}")
    return payload


def main() -> int:
    parser = argparse.ArgumentParser(description="Verify a pinset document with joserfc and cryptography.")
    parser.add_argument("--doc", required=True, help="the document file, or - for stdin")
    parser.add_argument("--pubkey", required=True, help="PEM file of the server's Ed25519 public key")
    parser.add_argument("--host", help="the host the document must be for")
    args = parser.parse_args()
    try:
        if args.doc == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.doc, "rb") as handle:
                data = handle.read()
        payload = verify(data, args.pubkey, args.host)
    except (Rejected, OSError, ValueError) as error:
        print(f"verify_document: REJECTED: {error}", file=sys.stderr)
        return 1
    print(json.dumps(payload, indent=2, ensure_ascii=False))
    print("verify_document: OK (joserfc and cryptography agree)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
