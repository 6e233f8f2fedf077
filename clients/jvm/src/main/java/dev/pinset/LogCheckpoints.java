package dev.pinset;

import dev.pinset.internal.Json;
import dev.pinset.internal.NoteText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The updater's half of PROTOCOL §7.4, as the Swift client's {@code LogAuditor}: fetches a document's tlog-proof,
 * checks it under the configured policy (plus the trust document's {@code logKeys}), computes the consistency proof
 * with the largest checkpoint accepted before from the log's tiles, and commits: the document is installed and the
 * larger checkpoint kept (and persisted) in one step under this object's lock, so a refusal at any point changes
 * nothing.
 */
final class LogCheckpoints {
    /** How often a check is redone when another document moved the largest checkpoint meanwhile. */
    private static final int ATTEMPTS = 4;

    private final LogPolicy policy;
    private final Ed25519Verifier ed25519;
    private final TrustStore trust;
    private final PinStorage storage;
    private final String server;
    private final PinSetTransport transport;
    private final Consumer<IOException> persistenceFailed;
    private final BiConsumer<String, LogDecision> forkSeen;
    private final Map<String, VerifiedCheckpoint> largest = new HashMap<>();
    /**
     * Log keys that signed both notes of a fork (PROTOCOL §7.4): no document whose checkpoint only they sign is
     * accepted until the trust in force names another key of that log in {@code logKeys}.
     */
    private final Set<VerifierKey> forked = new HashSet<>();

    /**
     * @param trust the trust store whose {@code logKeys} extend the policy; {@code null} without root keys
     * @param storage where the largest checkpoints are persisted; {@code null} keeps them in memory only
     * @param server the pin server's base URL, where proofs (and, without a URL in the policy, tiles) are fetched
     * @param persistenceFailed told when a larger checkpoint could not be persisted
     * @param forkSeen told (document path, fork) of a fork that a bundled document's proof showed, to be reported as
     *     the updater reports the forks it fetches
     */
    LogCheckpoints(LogPolicy policy, Ed25519Verifier ed25519, TrustStore trust, PinStorage storage, String server,
            PinSetTransport transport, Consumer<IOException> persistenceFailed, BiConsumer<String, LogDecision> forkSeen) {
        this.policy = policy;
        this.ed25519 = ed25519;
        this.trust = trust;
        this.storage = storage;
        this.server = server;
        this.transport = transport;
        this.persistenceFailed = persistenceFailed;
        this.forkSeen = forkSeen;
    }

    /** The policy the updater was configured with. */
    LogPolicy policy() {
        return policy;
    }

    /** The verifier under {@code state}'s {@code logKeys} (the trust in force when {@code null}). */
    private LogProofVerifier verifier(TrustState state) {
        TrustState keys = state != null ? state : trust != null ? trust.current() : null;
        return new LogProofVerifier(policy.withLogKeysOf(keys), ed25519);
    }

    /** Leaves out every key of {@code verifier}'s policy that signed both notes of a fork (PROTOCOL §7.4). */
    private synchronized void recordFork(SignedNote kept, SignedNote refused, LogProofVerifier verifier) {
        for (VerifierKey key : verifier.policy().logs()) {
            if (signs(key, kept) && signs(key, refused)) forked.add(key);
        }
    }

    /** The log keys left out after a fork (persisted ones included once {@link #loadPersisted()} ran). */
    synchronized Set<VerifierKey> forkedKeys() {
        return new HashSet<>(forked);
    }

    /** Whether {@code note} is signed by keys of {@code origin} that all signed a fork (and by at least one). */
    private synchronized boolean signedOnlyByForkedKeys(SignedNote note, String origin, LogProofVerifier verifier) {
        if (forked.isEmpty()) return false;
        boolean signed = false;
        for (VerifierKey key : verifier.policy().logs()) {
            if (!key.name().equals(origin) || !signs(key, note)) continue;
            if (!forked.contains(key)) return false;
            signed = true;
        }
        return signed;
    }

    private boolean signs(VerifierKey key, SignedNote note) {
        try {
            return !note.verify(Collections.singletonList(key), ed25519).isEmpty();
        } catch (LogError e) {
            return false;
        }
    }

    /**
     * Reloads the persisted largest checkpoints (one the policy no longer verifies is dropped: none is kept), and
     * leaves out again the log keys that signed a persisted fork, as the Swift client's {@code LogAuditor} does
     * (PROTOCOL §7.4: a restart does not forgive a fork). The fork files are the reports {@link PinStorage} kept;
     * both notes are verified again, so a file that was tampered with or names another key leaves out nothing.
     */
    synchronized void loadPersisted() {
        if (storage == null) return;
        LogProofVerifier verifier = verifier(null);
        Set<String> origins = new java.util.TreeSet<>();
        for (VerifierKey log : policy.logs()) origins.add(log.name());
        for (String origin : origins) {
            for (byte[] report : storage.loadForks(origin)) {
                SignedNote[] notes = forkNotes(report);
                if (notes != null) recordFork(notes[0], notes[1], verifier);
            }
        }
        for (VerifierKey log : policy.logs()) {
            byte[] bytes = storage.loadCheckpoint(log.name());
            if (bytes == null) continue;
            try {
                largest.put(log.name(), verifier.verifyCheckpoint(SignedNote.parse(bytes)));
            } catch (LogError ignored) {
                continue;
            }
        }
    }

    /**
     * The kept and the refused note of a persisted fork report ({@link PinFailureReporter#logForkJson}: PROTOCOL §3's
     * {@code held} and {@code new}, else {@code kept-checkpoint} and {@code refused-checkpoint}), or {@code null}.
     */
    private static SignedNote[] forkNotes(byte[] report) {
        try {
            Map<String, Object> fields = Json.parseObject(report);
            Object kept = fields.containsKey("held") ? fields.get("held") : fields.get("kept-checkpoint");
            Object refused = fields.containsKey("new") ? fields.get("new") : fields.get("refused-checkpoint");
            if (!(kept instanceof String) || !(refused instanceof String)) return null;
            return new SignedNote[] {SignedNote.parse(NoteText.utf8((String) kept)), SignedNote.parse(NoteText.utf8((String) refused))};
        } catch (Json.ParseException | LogError e) {
            return null;
        }
    }

    /**
     * PROTOCOL §7.4 for a bundled document (offline, no tiles), the same checks as the Swift client's
     * {@code checkBundled} plus the fork block: steps 1–2 under {@code given} (the trust in force's {@code logKeys}
     * counting as log keys); refused when its checkpoint is signed only by log keys that signed a fork; and, against
     * a largest checkpoint of the same size with another root, a fork, recorded and reported like one fetched. A
     * bundled proof never becomes the largest checkpoint.
     *
     * @param host the document's host, for the report's {@code /pins/<host>}
     * @return the proof's checkpoint
     * @throws DocumentRejection {@code notLogged} or {@code logFork}; nothing changed but the fork's record
     */
    SignedNote checkBundled(String host, byte[] document, LogProof proof, LogPolicy given) throws DocumentRejection {
        TrustState keys = trust != null ? trust.current() : null;
        LogProofVerifier verifier = new LogProofVerifier(given.withLogKeysOf(keys), ed25519);
        Checkpoint checkpoint;
        try {
            checkpoint = Checkpoint.parse(proof.checkpoint().text());
        } catch (LogError e) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "the bundled proof: " + e.getMessage());
        }
        String origin = checkpoint.origin();
        if (signedOnlyByForkedKeys(proof.checkpoint(), origin, verifier)) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "the bundled proof: the log key of " + origin
                    + " signed a fork: no document under it is accepted until a trust document names another log key");
        }
        // Offline there are no tiles: step 3 only against a largest checkpoint of the same size (two roots of one size
        // are a fork by themselves, which needs no quorum); a bundled proof never becomes the largest.
        VerifiedCheckpoint held = largest(origin);
        boolean sameSize = held != null && held.checkpoint().size() == checkpoint.size();
        LogDecision decision = verifier.decide(document, proof, sameSize ? held : null, Collections.<byte[]>emptyList());
        if (decision.kind() == LogDecision.Kind.FORK) {
            recordFork(decision.kept(), decision.refused(), verifier);
            forkSeen.accept("/pins/" + host, decision);
            throw new DocumentRejection(DocumentRejection.Code.LOG_FORK, "the bundled proof's checkpoint has the size of"
                    + " the largest accepted but another root: the log forked");
        }
        if (decision.kind() == LogDecision.Kind.REFUSED) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "the bundled proof: " + decision.error().getMessage());
        }
        return proof.checkpoint();
    }

    /**
     * Whether a document whose proof had {@code checkpoint} would be refused now because its log key signed a fork
     * (under the policy and the trust in force's {@code logKeys}).
     */
    boolean isBlocked(SignedNote checkpoint) {
        try {
            return signedOnlyByForkedKeys(checkpoint, Checkpoint.parse(checkpoint.text()).origin(), verifier(null));
        } catch (LogError e) {
            return false;
        }
    }

    /** The largest checkpoint of {@code origin} accepted so far, or {@code null}. */
    synchronized VerifiedCheckpoint largest(String origin) {
        return largest.get(origin);
    }

    /**
     * PROTOCOL §7.4 for the document served at {@code path} ({@code /pins/{host}} or {@code /trust/{n}}): fetches
     * {@code path + "/proof"}, checks steps 1–3, and, when they hold, calls {@code accept} (which installs the
     * document and says whether it was accepted) and keeps the larger checkpoint if it returns {@code true}, both
     * under this object's lock. A proof that is missing ({@code 404}) or for other bytes (step 1) is refused
     * ({@code notIncluded}). {@code etag}, the document's, is not compared with the proof's: since issue 35 a proof
     * has an ETag of its own (PROTOCOL §7.3).
     *
     * @param state whose {@code logKeys} count as log keys: a trust document's proof is checked under the state it
     *     makes (its root keys vouch for them); {@code null}: the trust in force
     * @return the decision: {@link LogDecision.Kind#ACCEPTED} when steps 1–3 held (whether {@code accept} took the
     *     document is the caller's to know), else the refusal or the fork (not yet reported)
     * @throws IOException when the proof or a tile cannot be fetched (nothing changes; retried later)
     */
    LogDecision check(String path, byte[] document, String etag, TrustState state, BooleanSupplier accept)
            throws IOException {
        String url = server + path + "/proof";
        TransportResponse response = transport.get(url, Collections.singletonMap("Accept", "text/plain"));
        if (response.status() == 404) {
            return LogDecision.refused(new LogError(LogError.Code.NOT_INCLUDED, "the server has no proof for " + path + " (404)"));
        }
        if (response.status() != 200) throw new IOException("the server answered " + response.status() + " for " + path + "/proof");
        // The proof has an ETag of its own (PROTOCOL §7.3, issue 35); its leaf hash binds it to the document's bytes.
        LogProof proof;
        Checkpoint checkpoint;
        try {
            proof = LogProof.parse(response.body());
            checkpoint = Checkpoint.parse(proof.checkpoint().text());
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        String given = policy.logUrl(checkpoint.origin());
        String base = given != null ? (given.endsWith("/") ? given.substring(0, given.length() - 1) : given) : server + "/log";
        LogProofVerifier verifier = verifier(state);
        if (signedOnlyByForkedKeys(proof.checkpoint(), checkpoint.origin(), verifier)) {
            return LogDecision.refused(new LogError(LogError.Code.UNKNOWN_ORIGIN, "the log key of " + checkpoint.origin()
                    + " signed a fork: no document under it is accepted until a trust document names another log key"));
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            VerifiedCheckpoint basis = largest(checkpoint.origin());
            // Step 3 from the tiles of the larger tree, whichever checkpoint is larger (issue 35): a smaller one must
            // be consistent with the one held too, and a tile that does not lead to the larger root is no fork.
            long large = basis == null ? checkpoint.size() : Math.max(basis.checkpoint().size(), checkpoint.size());
            LogDecision decision = verifier.decide(document, proof, basis, new TileReader(large, tile -> fetchTile(base, tile)));
            if (decision.kind() == LogDecision.Kind.FORK) recordFork(decision.kept(), decision.refused(), verifier);
            if (decision.kind() != LogDecision.Kind.ACCEPTED) return decision;
            synchronized (this) {
                if (largest.get(checkpoint.origin()) != basis) continue; // another document moved it: check again
                if (accept.getAsBoolean()) keep(decision.largest());
                return decision;
            }
        }
        return LogDecision.refused(new LogError(LogError.Code.INCONSISTENT,
                "the log's largest checkpoint kept moving while this document was checked; try again"));
    }

    /** Keeps {@code checkpoint} as its log's largest if it is larger, and persists it. Under the lock. */
    private void keep(VerifiedCheckpoint checkpoint) {
        String origin = checkpoint.checkpoint().origin();
        VerifiedCheckpoint before = largest.get(origin);
        if (before != null && before.checkpoint().size() >= checkpoint.checkpoint().size()) return;
        largest.put(origin, checkpoint);
        if (storage == null) return;
        try {
            storage.saveCheckpoint(origin, checkpoint.note().bytes());
        } catch (IOException e) {
            persistenceFailed.accept(e);
        }
    }

    /**
     * A tile's bytes from {@code base} (the policy's URL for the log, else {@code {server}/log}): the partial tile, or,
     * once the log has grown past it and it is gone, the first hashes of the full tile, as the Swift client reads them.
     */
    private byte[] fetchTile(String base, Tile tile) throws IOException {
        int wanted = tile.width() * 32;
        List<Tile> candidates = new ArrayList<>();
        candidates.add(tile);
        if (tile.width() < Tile.FULL_WIDTH) candidates.add(new Tile(tile.level(), tile.index(), Tile.FULL_WIDTH));
        String last = "no answer";
        for (Tile candidate : candidates) {
            String url = base + "/" + candidate.path();
            TransportResponse answer = transport.get(url, Collections.<String, String>emptyMap());
            if (answer.status() == 200 && answer.body().length >= wanted) return Arrays.copyOf(answer.body(), wanted);
            last = "GET " + url + " answered " + answer.status() + " with " + answer.body().length + " bytes";
        }
        throw new IOException(last);
    }
}
