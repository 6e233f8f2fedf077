package dev.pinset;

/** A pin document that passed every check of PROTOCOL §5. Immutable. */
public final class VerifiedDocument {
    private final PinSet pinSet;
    private final byte[] raw;
    private final String kid;

    VerifiedDocument(PinSet pinSet, byte[] raw, String kid) {
        this.pinSet = pinSet;
        this.raw = raw;
        this.kid = kid;
    }

    /** The signed pin set. */
    public PinSet pinSet() {
        return pinSet;
    }

    /** The document exactly as received (what gets persisted); a copy. */
    public byte[] raw() {
        return raw.clone();
    }

    /** The {@code kid} of the key that signed it. */
    public String kid() {
        return kid;
    }

    /** The marker rollback protection compares newer documents against. */
    public AcceptedVersion acceptedVersion() {
        return new AcceptedVersion(pinSet.version(), pinSet.issuedAt());
    }
}
