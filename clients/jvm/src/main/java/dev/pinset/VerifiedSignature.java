package dev.pinset;

/** A signature of a {@link SignedNote} that verified: the key and, for a cosignature, its timestamp. */
final class VerifiedSignature {
    private final VerifierKey key;
    private final long timestamp;

    VerifiedSignature(VerifierKey key, long timestamp) {
        this.key = key;
        this.timestamp = timestamp;
    }

    /** The key that signed. */
    public VerifierKey key() {
        return key;
    }

    /** The cosignature's time (seconds since the epoch), 0 for a plain Ed25519 signature. */
    public long timestamp() {
        return timestamp;
    }
}
