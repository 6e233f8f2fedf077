// Checking signed documents in the browser with WebCrypto's Ed25519, independently of the server's own code:
// a pin document (PROTOCOL §2, flattened JWS) and a trust document (§6.1, general JWS).

/** base64url (no padding) → bytes; throws on other characters. */
export function fromBase64URL(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function toBase64URL(bytes) {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const decodeJSON = (part) => JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64URL(part)));

/** Whether this page may use WebCrypto (a secure context: HTTPS, or http on loopback). */
export const canVerify = () => Boolean(globalThis.crypto && crypto.subtle);

/** The RFC 7638 thumbprint of an Ed25519 JWK. */
export async function thumbprint(jwk) {
  const canonical = JSON.stringify({ crv: "Ed25519", kty: "OKP", x: jwk.x });
  return toBase64URL(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical)));
}

async function verifySignature(jwk, protectedPart, payloadPart, signaturePart) {
  const key = await crypto.subtle.importKey("raw", fromBase64URL(jwk.x), { name: "Ed25519" }, false, ["verify"]);
  const input = new TextEncoder().encode(`${protectedPart}.${payloadPart}`);
  return crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64URL(signaturePart), input);
}

/**
 * Checks a pin document as served (its exact text) against a JWKS. Returns
 * {verified, reason, header, payload, kid}: `verified` is true only when the header is exactly EdDSA /
 * pinset+jws, the kid names a key of the set whose thumbprint it is, and the Ed25519 signature over
 * `protected + "." + payload` (as sent) is valid.
 */
export async function verifyPinDocument(text, jwks) {
  const result = { verified: false, reason: "", header: null, payload: null };
  let document;
  try {
    document = JSON.parse(text);
    result.header = decodeJSON(document.protected);
    result.payload = decodeJSON(document.payload);
  } catch (error) {
    result.reason = `the document is not a readable JWS (${error.message})`;
    return result;
  }
  const { alg, kid, typ } = result.header;
  if (alg !== "EdDSA" || typ !== "pinset+jws") {
    result.reason = `unexpected header: alg ${alg}, typ ${typ}`;
    return result;
  }
  if (!canVerify()) {
    result.reason = "this page is not a secure context, so the browser offers no WebCrypto: open the console over HTTPS or on localhost";
    return result;
  }
  const jwk = ((jwks && jwks.keys) || []).find((key) => key.kid === kid);
  if (!jwk) {
    result.reason = `no key in /keys has kid ${kid}`;
    return result;
  }
  try {
    if ((await thumbprint(jwk)) !== kid) {
      result.reason = `kid ${kid} is not the thumbprint of the key listed under it`;
      return result;
    }
    result.verified = await verifySignature(jwk, document.protected, document.payload, document.signature);
    if (!result.verified) result.reason = "the Ed25519 signature does not verify";
  } catch (error) {
    result.reason = `the browser could not check the signature (${error.name}: ${error.message})`;
  }
  return result;
}

/**
 * Reads a trust document (general JWS) and checks each signature against the root keys it lists itself
 * (PROTOCOL §6.2 step 3). Returns {payload, signatures: [{kid, verified}]} or throws when unreadable.
 */
export async function readTrustDocument(text) {
  const document = JSON.parse(text);
  const payload = decodeJSON(document.payload);
  const roots = payload.rootKeys || [];
  const signatures = [];
  for (const entry of document.signatures || []) {
    const header = decodeJSON(entry.protected);
    const jwk = roots.find((key) => key.kid === header.kid);
    let verified = false;
    if (jwk && canVerify() && header.alg === "EdDSA" && header.typ === "pinset-trust+jws") {
      try {
        verified = await verifySignature(jwk, entry.protected, document.payload, entry.signature);
      } catch {
        verified = false;
      }
    }
    signatures.push({ kid: header.kid, verified, listed: Boolean(jwk) });
  }
  return { payload, signatures };
}
