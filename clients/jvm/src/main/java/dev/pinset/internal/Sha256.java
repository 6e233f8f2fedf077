package dev.pinset.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 through {@code MessageDigest}, which every JVM and every Android version has. */
public final class Sha256 {
    private Sha256() {}

    public static byte[] hash(byte[] bytes) {
        return hash(bytes, 0, bytes.length);
    }

    public static byte[] hash(byte[] bytes, int offset, int length) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(bytes, offset, length);
            return digest.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required on every Java platform", e);
        }
    }
}
