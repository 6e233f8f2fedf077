package dev.pinset;

import java.util.Collections;
import java.util.List;

/** What the updater tells the app, one event per happening; the kinds are the Swift client's {@code UpdateEvent}. */
public final class UpdateEvent {
    /** The kind of event. */
    public enum Kind {
        /** A persisted document was loaded at start. */
        LOADED,
        /** A fetched document was accepted and is in force. */
        UPDATED,
        /** The server answered 304. */
        NOT_MODIFIED,
        /** A fetched document was refused; the previous set stays in force ({@link #rejection()}). */
        REJECTED,
        /** The fetch failed (transport error or unexpected status); retried with backoff ({@link #detail()}). */
        FETCH_FAILED,
        /** A document was accepted but could not be persisted. */
        PERSISTENCE_FAILED,
        /** A chain matched no pin ({@link #failure()}, classified for enforcing sets). */
        PIN_FAILURE,
        /** Persisted trust documents were verified again at start; {@link #version()} is in force. */
        TRUST_LOADED,
        /** A trust document was accepted; {@link #droppedKids()} are the signing keys it no longer lists. */
        TRUST_UPDATED,
        /** A trust document was refused ({@link #trustRejection()}); nothing changed. */
        TRUST_REJECTED,
        /** Another validly signed document with the version in force: two histories ({@link #inForce()}, {@link #offered()}). */
        TRUST_EQUIVOCATION,
        /** {@code GET /trust} failed. */
        TRUST_FETCH_FAILED,
        /** The set in force for {@link #host()} was signed by a key the trust in force no longer lists. */
        SIGNING_KEY_DROPPED
    }

    private final Kind kind;
    private final String host;
    private final long version;
    private final String detail;
    private final DocumentRejection rejection;
    private final TrustRejection trustRejection;
    private final PinFailure failure;
    private final byte[] inForce;
    private final byte[] offered;
    private final List<String> droppedKids;

    private UpdateEvent(Kind kind, String host, long version, String detail, DocumentRejection rejection,
            TrustRejection trustRejection, PinFailure failure, byte[] inForce, byte[] offered, List<String> droppedKids) {
        this.kind = kind;
        this.host = host;
        this.version = version;
        this.detail = detail;
        this.rejection = rejection;
        this.trustRejection = trustRejection;
        this.failure = failure;
        this.inForce = inForce;
        this.offered = offered;
        this.droppedKids = droppedKids == null ? Collections.<String>emptyList() : droppedKids;
    }

    static UpdateEvent of(Kind kind, String host, long version, String detail) {
        return new UpdateEvent(kind, host, version, detail, null, null, null, null, null, null);
    }

    static UpdateEvent rejected(String host, DocumentRejection rejection) {
        return new UpdateEvent(Kind.REJECTED, host, 0, rejection.getMessage(), rejection, null, null, null, null, null);
    }

    static UpdateEvent trustRejected(TrustRejection rejection) {
        return new UpdateEvent(Kind.TRUST_REJECTED, null, 0, rejection.getMessage(), null, rejection, null, null, null, null);
    }

    static UpdateEvent trustUpdated(long version, List<String> dropped) {
        return new UpdateEvent(Kind.TRUST_UPDATED, null, version, null, null, null, null, null, null, dropped);
    }

    static UpdateEvent equivocation(long version, byte[] inForce, byte[] offered) {
        return new UpdateEvent(Kind.TRUST_EQUIVOCATION, null, version, null, null, null, null, inForce, offered, null);
    }

    static UpdateEvent pinFailure(PinFailure failure) {
        return new UpdateEvent(Kind.PIN_FAILURE, failure.host(), failure.version(), failure.toString(), null, null,
                failure, null, null, null);
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    /** The host concerned, or {@code null} for trust events. */
    public String host() {
        return host;
    }

    /** The document or trust version concerned (0 when none). */
    public long version() {
        return version;
    }

    /** What happened, for logs; never contains key material. */
    public String detail() {
        return detail;
    }

    /** For {@link Kind#REJECTED}. */
    public DocumentRejection rejection() {
        return rejection;
    }

    /** For {@link Kind#TRUST_REJECTED}. */
    public TrustRejection trustRejection() {
        return trustRejection;
    }

    /** For {@link Kind#PIN_FAILURE}. */
    public PinFailure failure() {
        return failure;
    }

    /** For {@link Kind#TRUST_EQUIVOCATION}: the document in force. */
    public byte[] inForce() {
        return inForce == null ? null : inForce.clone();
    }

    /** For {@link Kind#TRUST_EQUIVOCATION}: the other document offered. */
    public byte[] offered() {
        return offered == null ? null : offered.clone();
    }

    /** For {@link Kind#TRUST_UPDATED}. */
    public List<String> droppedKids() {
        return droppedKids;
    }

    @Override
    public String toString() {
        return kind + (host == null ? "" : " " + host) + (version == 0 ? "" : " v" + version)
                + (detail == null ? "" : ": " + detail);
    }
}
