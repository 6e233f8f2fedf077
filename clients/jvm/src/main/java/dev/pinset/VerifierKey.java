package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Sha256;
import dev.pinset.internal.NoteText;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * A C2SP signed-note verifier key, {@code <name>+<hex key ID>+base64(type || 32-byte Ed25519 key)}, of type
 * {@code 0x01} (Ed25519, a log's key) or {@code 0x04} (tlog-cosignature/v1, a witness's key).
 */
final class VerifierKey {
    /** Signature type {@code 0x01}: Ed25519 over the note text. */
    public static final int ED25519 = 0x01;
    /** Signature type {@code 0x04}: cosignature/v1, a timestamp and Ed25519 over the cosigned message. */
    public static final int COSIGNATURE = 0x04;

    private final String name;
    private final int keyId;
    private final int type;
    private final byte[] publicKey;

    private VerifierKey(String name, int type, byte[] publicKey) {
        this.name = name;
        this.type = type;
        this.publicKey = publicKey;
        this.keyId = keyId(name, type, publicKey);
    }

    /** Parses a verifier key; the key ID must match the name, type and key. */
    public static VerifierKey parse(String text) throws LogError {
        int first = text.indexOf('+');
        int second = first < 0 ? -1 : text.indexOf('+', first + 1);
        if (second < 0) throw malformed();
        String name = text.substring(0, first);
        String hex = text.substring(first + 1, second);
        byte[] raw = NoteText.unbase64(text.substring(second + 1));
        if (hex.length() != 8 || !hex.equals(hex.toLowerCase(Locale.ROOT)) || !hex.matches("[0-9a-f]{8}") || raw == null
                || raw.length != 33) {
            throw malformed();
        }
        int type = raw[0] & 0xFF;
        if (type != ED25519 && type != COSIGNATURE) {
            throw new LogError(LogError.Code.MALFORMED, "verifier key type 0x" + Integer.toHexString(type) + " is not supported");
        }
        VerifierKey key = of(name, type, Arrays.copyOfRange(raw, 1, 33));
        if (key.keyId != (int) Long.parseLong(hex, 16)) {
            throw new LogError(LogError.Code.MALFORMED, "the key ID of " + name + " does not match its key");
        }
        return key;
    }

    /** A key of {@code type} ({@link #ED25519} or {@link #COSIGNATURE}) named {@code name}. */
    public static VerifierKey of(String name, int type, byte[] publicKey) throws LogError {
        if (!NoteText.isValidKeyName(name)) throw new LogError(LogError.Code.MALFORMED, "\"" + name + "\" is not a valid key name");
        if (publicKey.length != 32) throw new LogError(LogError.Code.MALFORMED, "an Ed25519 public key is 32 bytes");
        if (type != ED25519 && type != COSIGNATURE) throw new LogError(LogError.Code.MALFORMED, "an unsupported key type");
        return new VerifierKey(name, type, publicKey.clone());
    }

    private static LogError malformed() {
        return new LogError(LogError.Code.MALFORMED, "a verifier key is name+hexID+base64(type || 32-byte key)");
    }

    /** The first four bytes, big-endian, of SHA-256(name || 0x0A || type || key). */
    public static int keyId(String name, int type, byte[] publicKey) {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        byte[] nameBytes = NoteText.utf8(name);
        message.write(nameBytes, 0, nameBytes.length);
        message.write(0x0A);
        message.write(type);
        message.write(publicKey, 0, publicKey.length);
        byte[] digest = Sha256.hash(message.toByteArray());
        return (digest[0] & 0xFF) << 24 | (digest[1] & 0xFF) << 16 | (digest[2] & 0xFF) << 8 | (digest[3] & 0xFF);
    }

    /** The key name (a log's origin, or a witness's name). */
    public String name() {
        return name;
    }

    /** The key ID. */
    public int keyId() {
        return keyId;
    }

    /** {@link #ED25519} or {@link #COSIGNATURE}. */
    public int type() {
        return type;
    }

    /** The raw 32-byte Ed25519 public key. */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /**
     * Whether {@code signature} by this key verifies over {@code text}. Returns {@code null} when it does not, else the
     * cosignature's timestamp (0 for an Ed25519 note signature).
     */
    Long verify(NoteSignature signature, byte[] text, Ed25519Verifier ed25519) {
        byte[] bytes = signature.rawSignature();
        if (type == ED25519) {
            return bytes.length == 64 && ed25519.verify(publicKey, text, bytes) ? Long.valueOf(0) : null;
        }
        if (bytes.length != 72) return null;
        long timestamp = 0;
        for (int i = 0; i < 8; i++) timestamp = timestamp << 8 | (bytes[i] & 0xFF);
        if (timestamp < 0) return null;
        byte[] message = cosignedMessage(timestamp, text);
        return ed25519.verify(publicKey, message, Arrays.copyOfRange(bytes, 8, 72)) ? Long.valueOf(timestamp) : null;
    }

    /** The message a cosignature/v1 signs: {@code cosignature/v1\ntime <t>\n} followed by the checkpoint text. */
    static byte[] cosignedMessage(long timestamp, byte[] checkpointText) {
        byte[] head = NoteText.utf8("cosignature/v1\ntime " + timestamp + "\n");
        byte[] message = Arrays.copyOf(head, head.length + checkpointText.length);
        System.arraycopy(checkpointText, 0, message, head.length, checkpointText.length);
        return message;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof VerifierKey)) return false;
        VerifierKey key = (VerifierKey) other;
        return name.equals(key.name) && type == key.type && Arrays.equals(publicKey, key.publicKey);
    }

    @Override
    public int hashCode() {
        return keyId;
    }

    @Override
    public String toString() {
        byte[] raw = new byte[33];
        raw[0] = (byte) type;
        System.arraycopy(publicKey, 0, raw, 1, 32);
        return name + "+" + String.format(Locale.ROOT, "%08x", keyId) + "+" + Base64Codec.encodeStandard(raw);
    }
}
