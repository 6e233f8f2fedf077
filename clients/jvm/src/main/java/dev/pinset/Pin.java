package dev.pinset;

import dev.pinset.internal.Base64Codec;
import java.util.Map;
import javax.annotation.Nullable;

/** One pin of a set (PROTOCOL §1): a base64 SHA-256 of a SubjectPublicKeyInfo or a whole certificate. */
public final class Pin {
    /** What the hash covers. */
    public enum Type {
        /** SHA-256 of the DER SubjectPublicKeyInfo, algorithm identifier included (the default). */
        SPKI,
        /** SHA-256 of the whole DER certificate. */
        CERTIFICATE
    }

    private final String sha256;
    private final Type type;
    private final String role;
    private final Long expiresAt;
    private final byte[] hash;

    Pin(String sha256, Type type, String role, Long expiresAt) {
        this.sha256 = sha256;
        this.type = type;
        this.role = role;
        this.expiresAt = expiresAt;
        this.hash = Base64Codec.decodeStandard(sha256);
    }

    /** Standard padded base64 of the 32-byte hash. */
    public String sha256() {
        return sha256;
    }

    /** What the hash covers. */
    public Type type() {
        return type;
    }

    /** {@code current}, {@code backup} or {@code future} (informational). */
    public String role() {
        return role;
    }

    /** When the pin stops matching (epoch milliseconds), or {@code null} for never. */
    @Nullable
    public Long expiresAt() {
        return expiresAt;
    }

    /** Whether the pin still matches at {@code nowMillis}. */
    public boolean isActive(long nowMillis) {
        return expiresAt == null || nowMillis < expiresAt;
    }

    byte[] hash() {
        return hash;
    }

    static Pin decode(Object value) throws PinSet.FormatException {
        if (!(value instanceof Map)) throw new PinSet.FormatException("a pin is not a JSON object");
        Map<?, ?> map = (Map<?, ?>) value;
        String sha256 = PinSet.string(map, "sha256", true);
        String typeName = PinSet.string(map, "type", false);
        Type type;
        if (typeName == null || typeName.equals("spki")) {
            type = Type.SPKI;
        } else if (typeName.equals("certificate")) {
            type = Type.CERTIFICATE;
        } else {
            throw new PinSet.FormatException("pin type \"" + PinSet.clip(typeName, 40) + "\" is neither spki nor certificate");
        }
        String role = PinSet.string(map, "role", false);
        if (role == null) role = "current";
        if (!role.equals("current") && !role.equals("backup") && !role.equals("future")) {
            throw new PinSet.FormatException("pin role \"" + PinSet.clip(role, 40) + "\" is not current, backup or future");
        }
        Long expiresAt = PinSet.time(map, "expiresAt", false);
        String comment = PinSet.string(map, "comment", false);
        byte[] hash = Base64Codec.decodeStandard(sha256);
        if (hash == null || hash.length != 32) {
            throw new PinSet.FormatException("pin \"" + PinSet.clip(sha256, 60)
                    + "\": sha256 must be standard base64 (with padding) of exactly 32 bytes");
        }
        if (comment != null && comment.codePointCount(0, comment.length()) > 200) {
            throw new PinSet.FormatException("pin " + sha256 + ": comment is longer than 200 characters");
        }
        return new Pin(sha256, type, role, expiresAt);
    }
}
