package dev.pinset;

import javax.annotation.Nullable;

/** The outcome of evaluating a TLS chain against the pins of a host (PROTOCOL §5). */
public final class TrustDecision {
    /** What was decided; the names are the Swift client's {@code TrustDecision} cases. */
    public enum Kind {
        /** A certificate of the chain matched an unexpired pin. */
        TRUSTED("trusted"),
        /** No set covers the host (or its set is empty, or stale with stopPinningStaleSets). */
        HOST_NOT_PINNED("hostNotPinned"),
        /** The app pins the host but holds no set for it yet. */
        SET_MISSING("setMissing"),
        /** No pin matched and the set enforces: block the connection and report. */
        PIN_MISMATCH("pinMismatch"),
        /** No pin matched but the set is report-only: let the connection through and report. */
        REPORT_ONLY_MISMATCH("reportOnlyMismatch");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        /** The name shared with the Swift client and the test vectors. */
        public String wireName() {
            return wireName;
        }
    }

    private final Kind kind;
    private final boolean allowed;
    private final Pin pin;
    private final String notedHost;
    private final PinFailure failure;

    TrustDecision(Kind kind, boolean allowed, Pin pin, String notedHost, PinFailure failure) {
        this.kind = kind;
        this.allowed = allowed;
        this.pin = pin;
        this.notedHost = notedHost;
        this.failure = failure;
    }

    /** What was decided. */
    public Kind kind() {
        return kind;
    }

    /** Whether the connection may proceed. */
    public boolean allowsConnection() {
        return allowed;
    }

    /** The pin that matched, for {@link Kind#TRUSTED}; {@code null} otherwise. */
    @Nullable
    public Pin pin() {
        return pin;
    }

    /** The pinned domain whose set decided ({@code null} when no set applied). */
    @Nullable
    public String notedHost() {
        return notedHost;
    }

    /** The failure to report, for the two mismatch kinds; {@code null} otherwise. */
    @Nullable
    public PinFailure failure() {
        return failure;
    }

    @Override
    public String toString() {
        return kind.wireName() + (allowed ? " (allowed)" : " (refused)") + (failure == null ? "" : ": " + failure);
    }
}
