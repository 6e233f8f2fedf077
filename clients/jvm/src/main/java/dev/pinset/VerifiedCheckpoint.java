package dev.pinset;

import java.util.Collections;
import java.util.Set;

/** A checkpoint whose origin and log signature verified under a {@link LogPolicy}, with the witnesses that cosigned. */
final class VerifiedCheckpoint {
    private final SignedNote note;
    private final Checkpoint checkpoint;
    private final Set<String> witnesses;

    VerifiedCheckpoint(SignedNote note, Checkpoint checkpoint, Set<String> witnesses) {
        this.note = note;
        this.checkpoint = checkpoint;
        this.witnesses = Collections.unmodifiableSet(witnesses);
    }

    /** The signed note as received. */
    public SignedNote note() {
        return note;
    }

    /** Its parsed body. */
    public Checkpoint checkpoint() {
        return checkpoint;
    }

    /** The policy names of the witnesses whose cosignature verified. */
    public Set<String> witnesses() {
        return witnesses;
    }
}
