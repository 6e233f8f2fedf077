package dev.pinset;

import dev.pinset.internal.NoteText;
import java.util.Arrays;

/** One signature line of a C2SP signed note: {@code — <name> base64(keyID || signature)}. */
final class NoteSignature {
    private static final String PREFIX = "\u2014 ";

    private final String name;
    private final int keyId;
    private final byte[] signature;

    NoteSignature(String name, int keyId, byte[] signature) {
        this.name = name;
        this.keyId = keyId;
        this.signature = signature;
    }

    /** Parses one line, without its newline. */
    static NoteSignature parse(String line) throws LogError {
        if (!line.startsWith(PREFIX)) throw new LogError(LogError.Code.MALFORMED, "a signature line does not start with an em dash");
        String rest = line.substring(PREFIX.length());
        int space = rest.lastIndexOf(' ');
        if (space < 0) throw new LogError(LogError.Code.MALFORMED, "a signature line has no key name and signature");
        String name = rest.substring(0, space);
        if (!NoteText.isValidKeyName(name)) throw new LogError(LogError.Code.MALFORMED, "a signature's key name is not valid");
        byte[] raw = NoteText.unbase64(rest.substring(space + 1));
        if (raw == null || raw.length <= 4) {
            throw new LogError(LogError.Code.MALFORMED, "a signature of " + name + " is not base64 of a key ID and a signature");
        }
        int id = (raw[0] & 0xFF) << 24 | (raw[1] & 0xFF) << 16 | (raw[2] & 0xFF) << 8 | (raw[3] & 0xFF);
        return new NoteSignature(name, id, Arrays.copyOfRange(raw, 4, raw.length));
    }

    /** The key name. */
    public String name() {
        return name;
    }

    /** The 32-bit key ID (first four bytes of SHA-256(name || 0x0A || type || key)). */
    public int keyId() {
        return keyId;
    }

    /** The signature bytes after the key ID (64 for Ed25519, 72 for a cosignature). */
    public byte[] signature() {
        return signature.clone();
    }

    byte[] rawSignature() {
        return signature;
    }
}
