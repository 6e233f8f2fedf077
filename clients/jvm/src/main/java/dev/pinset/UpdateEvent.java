package dev.pinset;

import java.util.Collections;
import java.util.List;
import javax.annotation.Nullable;

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
        SIGNING_KEY_DROPPED,
        /**
         * With a tlog-policy: the log forked. The checkpoint of the proof of {@link #document()} is inconsistent with
         * the largest one accepted before: {@link #inForce()} is that one (kept), {@link #offered()} the new one
         * (refused); both are signed notes, proof of a split view. They are stored ({@link PinStorage#saveFork}) and
         * posted to the report URI; a {@link #REJECTED} (or {@link #TRUST_REJECTED}) with code {@code logFork}
         * follows. (A proof that fails steps 1–2 is a {@code REJECTED} with code {@code notLogged}.)
         */
        LOG_FORK
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
    private final LogError logError;

    private UpdateEvent(Kind kind, String host, long version, String detail, DocumentRejection rejection,
            TrustRejection trustRejection, PinFailure failure, byte[] inForce, byte[] offered, List<String> droppedKids,
            LogError logError) {
        this.kind = kind;
        this.host = host;
        this.version = version;
        this.detail = detail;
        this.rejection = rejection;
        this.trustRejection = trustRejection;
        this.failure = failure;
        this.inForce = inForce;
        this.offered = offered;
        this.logError = logError;
        this.droppedKids = droppedKids == null ? Collections.<String>emptyList() : droppedKids;
    }

    static UpdateEvent of(Kind kind, String host, long version, String detail) {
        return new UpdateEvent(kind, host, version, detail, null, null, null, null, null, null, null);
    }

    static UpdateEvent rejected(String host, DocumentRejection rejection) {
        return rejected(host, rejection, null);
    }

    /** A refusal by PROTOCOL §7.4, with the {@link LogError} behind it. */
    static UpdateEvent rejected(String host, DocumentRejection rejection, LogError logError) {
        return new UpdateEvent(Kind.REJECTED, host, 0, rejection.getMessage(), rejection, null, null, null, null, null,
                logError);
    }

    static UpdateEvent trustRejected(TrustRejection rejection) {
        return trustRejected(rejection, null);
    }

    static UpdateEvent trustRejected(TrustRejection rejection, LogError logError) {
        return new UpdateEvent(Kind.TRUST_REJECTED, null, 0, rejection.getMessage(), null, rejection, null, null, null,
                null, logError);
    }

    static UpdateEvent trustUpdated(long version, List<String> dropped) {
        return new UpdateEvent(Kind.TRUST_UPDATED, null, version, null, null, null, null, null, null, dropped, null);
    }

    static UpdateEvent equivocation(long version, byte[] inForce, byte[] offered) {
        return new UpdateEvent(Kind.TRUST_EQUIVOCATION, null, version, null, null, null, null, inForce, offered, null, null);
    }

    /** {@code document}: {@code /pins/<host>} or {@code /trust/<version>} (the event's detail). */
    static UpdateEvent logFork(String host, String document, LogDecision fork) {
        return new UpdateEvent(Kind.LOG_FORK, host, 0, document, null, null, null, fork.kept().bytes(),
                fork.refused().bytes(), null, fork.error());
    }

    static UpdateEvent pinFailure(PinFailure failure) {
        return new UpdateEvent(Kind.PIN_FAILURE, failure.host(), failure.version(), failure.toString(), null, null,
                failure, null, null, null, null);
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    /** The host concerned, or {@code null} for trust events. */
    @Nullable
    public String host() {
        return host;
    }

    /** The document or trust version concerned (0 when none). */
    public long version() {
        return version;
    }

    /** What happened, for logs; never contains key material. {@code null} when the kind says it all (e.g. {@link Kind#NOT_MODIFIED}). */
    @Nullable
    public String detail() {
        return detail;
    }

    /** For {@link Kind#REJECTED}. */
    @Nullable
    public DocumentRejection rejection() {
        return rejection;
    }

    /** For {@link Kind#TRUST_REJECTED}. */
    @Nullable
    public TrustRejection trustRejection() {
        return trustRejection;
    }

    /** For {@link Kind#PIN_FAILURE}. */
    @Nullable
    public PinFailure failure() {
        return failure;
    }

    /**
     * For a {@link Kind#REJECTED} or {@link Kind#TRUST_REJECTED} with code {@code notLogged}: why the proof failed;
     * for {@link Kind#LOG_FORK}: code {@code inconsistent}. {@code null} otherwise.
     */
    @Nullable
    public LogError logError() {
        return logError;
    }

    /** For {@link Kind#LOG_FORK}: the path of the document whose proof forked, {@code /pins/<host>} or {@code /trust/<n>}. */
    @Nullable
    public String document() {
        return kind == Kind.LOG_FORK ? detail : null;
    }

    /** For {@link Kind#TRUST_EQUIVOCATION}: the document in force; for {@link Kind#LOG_FORK}: the checkpoint kept. */
    @Nullable
    public byte[] inForce() {
        return inForce == null ? null : inForce.clone();
    }

    /** For {@link Kind#TRUST_EQUIVOCATION}: the other document offered; for {@link Kind#LOG_FORK}: the checkpoint refused. */
    @Nullable
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
