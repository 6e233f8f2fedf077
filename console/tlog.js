// Checking transparency-log proofs in the browser with WebCrypto, independently of the server's own code
// (PROTOCOL §7): C2SP signed notes and checkpoints, C2SP tlog-proof, RFC 6962 hashing and the RFC 9162
// inclusion check, and the log's Ed25519 note signature (type 0x01) when the log's vkey is known.
import { canVerify } from "./jws.js";

const utf8 = (text) => new TextEncoder().encode(text);

/** base64 (standard, padded) → bytes; throws on anything else. */
function fromBase64(text) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error("not base64");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const equal = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** RFC 6962 leaf hash: SHA-256(0x00 || entry). */
export const leafHash = (entry) => sha256(concat(new Uint8Array([0]), entry));
const nodeHash = (left, right) => sha256(concat(new Uint8Array([1]), left, right));

/** RFC 9162 §2.1.3.2: whether `proof` leads from `leaf` at `index` to `root` in a tree of `size` leaves. */
export async function verifyInclusion(leaf, index, size, proof, root) {
  if (index < 0 || index >= size || proof.length > 63) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** A C2SP signed note: {text (the signed bytes), signatures: [{name, keyID, signature}]}; throws if malformed. */
export function parseNote(noteText) {
  const split = noteText.lastIndexOf("\n\n");
  if (split < 0 || !noteText.endsWith("\n")) throw new Error("not a signed note");
  const text = noteText.slice(0, split + 1);
  const signatures = noteText.slice(split + 2, -1).split("\n").map((line) => {
    const match = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (!match) throw new Error("a signature line is not “— name base64”");
    const bytes = fromBase64(match[2]);
    if (bytes.length < 5) throw new Error("a signature is too short");
    return { name: match[1], keyID: bytes.slice(0, 4), signature: bytes.slice(4) };
  });
  return { text, signatures };
}

/** A C2SP tlog-checkpoint body: {origin, size, root}. */
export function parseCheckpoint(text) {
  const lines = text.split("\n");
  if (lines.length < 4 || !/^(0|[1-9][0-9]*)$/.test(lines[1])) throw new Error("not a checkpoint");
  const root = fromBase64(lines[2]);
  if (root.length !== 32) throw new Error("the checkpoint root is not 32 bytes");
  return { origin: lines[0], size: Number(lines[1]), root };
}

/** A C2SP tlog-proof: {index, proof: [hash], note (text of the signed checkpoint)}. */
export function parseProof(text) {
  const blank = text.indexOf("\n\n");
  if (blank < 0) throw new Error("a proof has a blank line before its checkpoint");
  const lines = text.slice(0, blank).split("\n");
  if (lines.shift() !== "c2sp.org/tlog-proof@v1") throw new Error("a proof starts with c2sp.org/tlog-proof@v1");
  if (lines[0] && lines[0].startsWith("extra ")) lines.shift();
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines.shift() || "");
  if (!index) throw new Error("a proof has an index line");
  const proof = lines.map((line) => {
    const hash = fromBase64(line);
    if (hash.length !== 32) throw new Error("an inclusion proof line is not 32 bytes");
    return hash;
  });
  return { index: Number(index[1]), proof, note: text.slice(blank + 2) };
}

/** A vkey `name+hexID+base64(0x01 || key)` → {name, keyID, publicKey}, or null if it is not an Ed25519 note key. */
export function parseVerifierKey(vkey) {
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey || "");
  if (!match) return null;
  const raw = fromBase64(match[3]);
  if (raw.length !== 33 || raw[0] !== 1) return null;
  const id = match[2].match(/../g).map((pair) => parseInt(pair, 16));
  return { name: match[1], keyID: new Uint8Array(id), publicKey: raw.slice(1) };
}

/** Whether `note` carries a valid Ed25519 signature by `key` (from parseVerifierKey). */
export async function verifyNoteSignature(note, key) {
  const line = note.signatures.find((s) => s.name === key.name && equal(s.keyID, key.keyID));
  if (!line || line.signature.length !== 64) return false;
  const imported = await crypto.subtle.importKey("raw", key.publicKey, { name: "Ed25519" }, false, ["verify"]);
  return crypto.subtle.verify({ name: "Ed25519" }, imported, line.signature, utf8(note.text));
}

/**
 * Checks that `documentText` (exactly as served) is in the log, by `proofText` (GET …/proof): RFC 6962 leaf
 * hash, inclusion in the proof's checkpoint, and, with the log's vkey, the checkpoint's log signature.
 * Returns {included, signed (true, false or null when not checked), index, checkpoint, note, reason}.
 */
export async function verifyDocumentProof(documentText, proofText, vkey) {
  const result = { included: false, signed: null, index: null, checkpoint: null, note: null, reason: "" };
  if (!canVerify()) {
    result.reason = "this page is not a secure context, so the browser offers no WebCrypto";
    return result;
  }
  try {
    const proof = parseProof(proofText);
    result.index = proof.index;
    result.note = parseNote(proof.note);
    result.checkpoint = parseCheckpoint(result.note.text);
    const { size, root } = result.checkpoint;
    result.included = await verifyInclusion(await leafHash(utf8(documentText)), proof.index, size, proof.proof, root);
    if (!result.included) result.reason = `the inclusion proof of entry ${proof.index} does not lead to the checkpoint's root`;
    const key = parseVerifierKey(vkey);
    if (key) {
      result.signed = key.name === result.checkpoint.origin && await verifyNoteSignature(result.note, key);
      if (!result.signed) result.reason ||= `no valid signature of ${key.name} on the checkpoint`;
    }
  } catch (error) {
    result.reason = `the proof is unreadable (${error.message})`;
  }
  return result;
}
