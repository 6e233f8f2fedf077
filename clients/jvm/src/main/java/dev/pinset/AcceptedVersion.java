package dev.pinset;

/** The highest document already accepted for a host (PROTOCOL §5 step 6): its version, then its issue time. */
public final class AcceptedVersion implements Comparable<AcceptedVersion> {
    private final long version;
    private final long issuedAt;

    /** Creates a marker; {@code issuedAt} in epoch milliseconds. */
    public AcceptedVersion(long version, long issuedAt) {
        this.version = version;
        this.issuedAt = issuedAt;
    }

    /** A floor that refuses every version below {@code version}. */
    public static AcceptedVersion minimum(long version) {
        return new AcceptedVersion(version, Long.MIN_VALUE);
    }

    /** The document version. */
    public long version() {
        return version;
    }

    /** When that version was signed, epoch milliseconds. */
    public long issuedAt() {
        return issuedAt;
    }

    @Override
    public int compareTo(AcceptedVersion other) {
        int byVersion = Long.compare(version, other.version);
        return byVersion != 0 ? byVersion : Long.compare(issuedAt, other.issuedAt);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AcceptedVersion && compareTo((AcceptedVersion) other) == 0;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(version) * 31 + Long.hashCode(issuedAt);
    }
}
