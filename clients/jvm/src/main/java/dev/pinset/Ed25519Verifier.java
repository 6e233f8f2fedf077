package dev.pinset;

/**
 * Checks pure Ed25519 (RFC 8032) signatures. The default, {@link JdkEd25519Verifier}, uses the platform's
 * {@code Signature.getInstance("Ed25519")} (Java 15+, Android API 33+); below API 33 pass
 * {@link BouncyCastleEd25519Verifier} (BouncyCastle's lightweight API, no provider registration).
 */
public interface Ed25519Verifier {
    /**
     * Whether {@code signature} is a valid Ed25519 signature of {@code message} by the raw 32-byte {@code publicKey}.
     * Malformed inputs give {@code false}; never throws.
     */
    boolean verify(byte[] publicKey, byte[] message, byte[] signature);
}
