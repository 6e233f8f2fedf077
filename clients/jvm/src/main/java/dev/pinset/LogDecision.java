package dev.pinset;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The outcome of PROTOCOL §7.4 for one document and its proof ({@link LogProofVerifier#decide}): accepted (keep
 * {@link #largest()} from now on), refused with a {@link LogError}, or a fork with both signed notes.
 */
final class LogDecision {
    /** The three outcomes. */
    public enum Kind {
        /** Steps 1–3 hold; {@link #largest()} is the checkpoint to keep. */
        ACCEPTED,
        /** The proof, the log signature or the quorum failed ({@link #error()}); nothing changes. */
        REFUSED,
        /** The checkpoint is inconsistent with the largest accepted before ({@link #kept()}, {@link #refused()}). */
        FORK
    }

    private final Kind kind;
    private final VerifiedCheckpoint largest;
    private final LogError error;
    private final SignedNote kept;
    private final SignedNote refused;
    private final List<byte[]> proof;

    private LogDecision(Kind kind, VerifiedCheckpoint largest, LogError error, SignedNote kept, SignedNote refused,
            List<byte[]> proof) {
        this.kind = kind;
        this.largest = largest;
        this.error = error;
        this.kept = kept;
        this.refused = refused;
        this.proof = proof;
    }

    static LogDecision accepted(VerifiedCheckpoint largest) {
        return new LogDecision(Kind.ACCEPTED, largest, null, null, null, Collections.<byte[]>emptyList());
    }

    static LogDecision refused(LogError error) {
        return new LogDecision(Kind.REFUSED, null, error, null, null, Collections.<byte[]>emptyList());
    }

    /**
     * A fork: {@code kept} accepted before, {@code refused} inconsistent with it, and the evidence beside the notes
     * (PROTOCOL §7.4): across sizes the consistency proof from the smaller tree to the larger that fails ({@code proof},
     * RFC 6962 order), of the same size none (two roots of one size prove it alone).
     */
    static LogDecision fork(SignedNote kept, SignedNote refused, List<byte[]> proof) {
        List<byte[]> copy = new ArrayList<>();
        for (byte[] hash : proof) copy.add(hash.clone());
        return new LogDecision(Kind.FORK, null, new LogError(LogError.Code.INCONSISTENT,
                "the log forked: the new checkpoint is inconsistent with the largest one accepted before"), kept, refused,
                Collections.unmodifiableList(copy));
    }

    /** The outcome. */
    public Kind kind() {
        return kind;
    }

    /** For {@link Kind#ACCEPTED}: the larger of the new checkpoint and the largest before. */
    public VerifiedCheckpoint largest() {
        return largest;
    }

    /** For {@link Kind#REFUSED} (and {@link Kind#FORK}, code {@code inconsistent}): why. */
    public LogError error() {
        return error;
    }

    /** For {@link Kind#FORK}: the checkpoint accepted before, which the client keeps. */
    public SignedNote kept() {
        return kept;
    }

    /** For {@link Kind#FORK}: the new checkpoint, refused. */
    public SignedNote refused() {
        return refused;
    }

    /**
     * For {@link Kind#FORK}: the consistency proof from the smaller checkpoint to the larger that fails (32-byte
     * hashes, RFC 6962 order); empty when both have one size. Empty for the other kinds.
     */
    public List<byte[]> proof() {
        return proof;
    }

    @Override
    public String toString() {
        switch (kind) {
            case ACCEPTED: return "accepted at tree size " + largest.checkpoint().size();
            case REFUSED: return "refused: " + error.getMessage();
            default: return error.getMessage() + "\n" + kept + "\n" + refused;
        }
    }
}
