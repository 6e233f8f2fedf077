package dev.pinset;

import dev.pinset.internal.MerkleHasher;
import dev.pinset.internal.Sha256;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The client's checks of PROTOCOL §7.4 under a C2SP tlog-policy, in the Swift {@code LogProofVerifier}'s order
 * and with its refusal codes: the document is leaf {@code index} of the proof's checkpoint, the checkpoint is
 * signed by a policy log, it is consistent with the largest checkpoint accepted before (a fork needs no witness to
 * be proven), and its cosignatures meet the quorum. Pure: bytes in, a value out; no clock, no I/O.
 */
final class LogProofVerifier {
    private final LogPolicy policy;
    private final Ed25519Verifier ed25519;
    private final List<VerifierKey> witnessKeys;

    /** A verifier for {@code policy} over {@code ed25519}. */
    public LogProofVerifier(LogPolicy policy, Ed25519Verifier ed25519) {
        this.policy = policy;
        this.ed25519 = ed25519;
        this.witnessKeys = new ArrayList<>(policy.witnesses().values());
    }

    /** The policy checkpoints are checked against. */
    public LogPolicy policy() {
        return policy;
    }

    /**
     * Step 2 alone: the checkpoint's origin is a policy log's, its signature verifies, and the witnesses whose
     * cosignatures verify meet the quorum.
     *
     * @throws LogError {@code malformed}, {@code unknownOrigin}, {@code badSignature}, {@code unsigned} or
     *     {@code quorumNotMet}
     */
    public VerifiedCheckpoint verifyCheckpoint(SignedNote note) throws LogError {
        VerifiedCheckpoint verified = signedByLog(note);
        requireQuorum(verified);
        return verified;
    }

    /** The checkpoint's origin is a policy log's and its signature verifies; the quorum is not checked. */
    VerifiedCheckpoint signedByLog(SignedNote note) throws LogError {
        Checkpoint checkpoint = Checkpoint.parse(note.text());
        List<VerifierKey> logKeys = new ArrayList<>();
        for (VerifierKey key : policy.logs()) if (key.name().equals(checkpoint.origin())) logKeys.add(key);
        if (logKeys.isEmpty()) throw new LogError(LogError.Code.UNKNOWN_ORIGIN, "the policy has no log " + checkpoint.origin());
        if (note.verify(logKeys, ed25519).isEmpty()) {
            throw new LogError(LogError.Code.UNSIGNED, "no signature of log " + checkpoint.origin() + " on the checkpoint");
        }
        Set<String> names = new HashSet<>();
        for (VerifiedSignature signature : note.verify(witnessKeys, ed25519)) {
            for (Map.Entry<String, VerifierKey> witness : policy.witnesses().entrySet()) {
                if (witness.getValue().equals(signature.key())) names.add(witness.getKey());
            }
        }
        return new VerifiedCheckpoint(note, checkpoint, names);
    }

    private void requireQuorum(VerifiedCheckpoint verified) throws LogError {
        if (!policy.isQuorumMet(verified.witnesses())) {
            throw new LogError(LogError.Code.QUORUM_NOT_MET, "cosigned by " + verified.witnesses().size()
                    + " witness(es) " + verified.witnesses() + ", short of the quorum " + policy.quorum());
        }
    }

    /** Steps 1 and 2: {@code entry} (the bytes as received) is leaf {@link LogProof#index()} of a verified checkpoint. */
    public VerifiedCheckpoint verify(byte[] entry, LogProof proof) throws LogError {
        VerifiedCheckpoint verified = included(entry, proof);
        requireQuorum(verified);
        return verified;
    }

    private VerifiedCheckpoint included(byte[] entry, LogProof proof) throws LogError {
        VerifiedCheckpoint verified = signedByLog(proof.checkpoint());
        Checkpoint checkpoint = verified.checkpoint();
        if (!MerkleHasher.verifyInclusion(MerkleHasher.leafHash(entry), proof.index(), checkpoint.size(),
                proof.inclusionProof(), checkpoint.rootHash())) {
            throw new LogError(LogError.Code.NOT_INCLUDED,
                    "the inclusion proof of leaf " + proof.index() + " does not lead to the checkpoint's root");
        }
        return verified;
    }

    /**
     * Step 3: whether {@code fresh} and {@code largest} (same log) are consistent under {@code proof}, the
     * consistency proof from the smaller size to the larger (empty for equal sizes).
     */
    public static boolean areConsistent(VerifiedCheckpoint fresh, VerifiedCheckpoint largest, List<byte[]> proof) {
        Checkpoint a = fresh.checkpoint();
        Checkpoint b = largest.checkpoint();
        if (!a.origin().equals(b.origin())) return false;
        Checkpoint small = a.size() <= b.size() ? a : b;
        Checkpoint large = small == a ? b : a;
        return MerkleHasher.verifyConsistency(small.size(), large.size(), small.rootHash(), large.rootHash(), proof);
    }

    /**
     * PROTOCOL §7.4 steps 1 to 3 with step 3 judged from tiles (issue 35), as the Swift
     * {@code LogProofVerifier.verify(entry:proof:largest:tiles:)}: whichever checkpoint is smaller, the tiles' root at
     * its size counts only if a consistency proof from the same tiles leads from it to the larger checkpoint's root.
     * Then it is the larger tree's root at that size: another root than the smaller checkpoint's is a fork. Tiles that
     * do not lead to the larger root (wrong or missing) show nothing: the document is refused ({@code missingHash}),
     * never taken for a fork.
     *
     * @param tiles the log's tiles, a reader of the larger of the two sizes; ignored when {@code largest} is
     *     {@code null}
     */
    public LogDecision decide(byte[] entry, LogProof proof, VerifiedCheckpoint largest, TileReader tiles) {
        VerifiedCheckpoint verified;
        try {
            verified = included(entry, proof);
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        VerifiedCheckpoint kept = verified;
        if (largest != null) {
            Checkpoint fresh = verified.checkpoint();
            Checkpoint held = largest.checkpoint();
            if (!fresh.origin().equals(held.origin())) {
                return LogDecision.fork(largest.note(), verified.note(), Collections.<byte[]>emptyList());
            }
            Checkpoint small = fresh.size() <= held.size() ? fresh : held;
            Checkpoint large = small == fresh ? held : fresh;
            boolean prefix;
            // The evidence of a fork across sizes (PROTOCOL §3, §7.4): the proof from the smaller tree to the larger,
            // which leads from the tiles' root, not from the smaller checkpoint's. Of one size: none is needed.
            List<byte[]> consistency = Collections.emptyList();
            if (small.size() == large.size()) {
                prefix = Arrays.equals(small.rootHash(), large.rootHash());
            } else if (small.size() == 0) {
                prefix = Arrays.equals(small.rootHash(), Sha256.hash(new byte[0]));
            } else {
                byte[] candidate;
                try {
                    consistency = tiles.consistencyProof(small.size(), large.size());
                    candidate = tiles.rootHash(small.size());
                    if (!MerkleHasher.verifyConsistency(small.size(), large.size(), candidate, large.rootHash(), consistency)) {
                        return LogDecision.refused(new LogError(LogError.Code.MISSING_HASH, "the tiles do not lead to the "
                                + "checkpoint of size " + large.size() + ": no consistency proof from size " + small.size()
                                + " can be had"));
                    }
                } catch (LogError e) {
                    return LogDecision.refused(new LogError(LogError.Code.MISSING_HASH,
                            "no consistency proof could be read: " + e.getMessage()));
                }
                prefix = Arrays.equals(candidate, small.rootHash());
            }
            if (!prefix) return LogDecision.fork(largest.note(), verified.note(), consistency);
            kept = held.size() >= fresh.size() ? largest : verified;
        }
        try {
            requireQuorum(verified);
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        return LogDecision.accepted(kept);
    }

    /**
     * PROTOCOL §7.4 steps 1 to 3 for a document fetched with its proof: inclusion and the log's signature, then
     * consistency with {@code largest} (a fork needs no witness to be proven), then the quorum.
     *
     * @param entry the document's bytes as received
     * @param proof its tlog-proof
     * @param largest the largest checkpoint of this log accepted before, or {@code null}
     * @param consistencyProof between {@code largest} and the proof's checkpoint, smaller size first (from the log's
     *     tiles); ignored when {@code largest} is {@code null}
     */
    public LogDecision decide(byte[] entry, LogProof proof, VerifiedCheckpoint largest, List<byte[]> consistencyProof) {
        VerifiedCheckpoint verified;
        try {
            verified = included(entry, proof);
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        VerifiedCheckpoint kept = verified;
        if (largest != null) {
            if (!areConsistent(verified, largest, consistencyProof)) {
                boolean sameSize = verified.checkpoint().size() == largest.checkpoint().size();
                return LogDecision.fork(largest.note(), verified.note(),
                        sameSize ? Collections.<byte[]>emptyList() : consistencyProof);
            }
            kept = largest.checkpoint().size() >= verified.checkpoint().size() ? largest : verified;
        }
        try {
            requireQuorum(verified);
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        return LogDecision.accepted(kept);
    }
}
