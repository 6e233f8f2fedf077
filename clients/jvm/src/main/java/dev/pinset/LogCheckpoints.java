package dev.pinset;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The updater's half of PROTOCOL §7.4: checks a fetched document against its tlog-proof under the configured
 * policy (plus the trust document's {@code logKeys}), computes the consistency proof with the largest checkpoint
 * accepted before from the log's tiles ({@code GET {server}/log/tile/...}), and keeps, and persists, the largest
 * checkpoint of each log once a document is accepted.
 */
final class LogCheckpoints {
    private final LogPolicy policy;
    private final Ed25519Verifier ed25519;
    private final TrustStore trust;
    private final PinStorage storage;
    private final String server;
    private final PinSetTransport transport;
    private final Map<String, VerifiedCheckpoint> largest = new HashMap<>();

    /**
     * @param trust the trust store whose {@code logKeys} extend the policy; {@code null} without root keys
     * @param storage where the largest checkpoints are persisted; {@code null} keeps them in memory only
     * @param server the pin server's base URL, where proofs and tiles are fetched
     */
    LogCheckpoints(LogPolicy policy, Ed25519Verifier ed25519, TrustStore trust, PinStorage storage, String server,
            PinSetTransport transport) {
        this.policy = policy;
        this.ed25519 = ed25519;
        this.trust = trust;
        this.storage = storage;
        this.server = server;
        this.transport = transport;
    }

    /** The verifier of now: the policy with the log keys of the trust document in force. */
    LogProofVerifier verifier() {
        return new LogProofVerifier(policy.withLogKeysOf(trust), ed25519);
    }

    /** Reloads the persisted largest checkpoints; one whose log signature no longer verifies is dropped. */
    synchronized void loadPersisted() {
        if (storage == null) return;
        LogProofVerifier verifier = verifier();
        for (VerifierKey log : policy.logs()) {
            byte[] bytes = storage.loadCheckpoint(log.name());
            if (bytes == null) continue;
            try {
                largest.put(log.name(), verifier.signedByLog(SignedNote.parse(bytes)));
            } catch (LogError ignored) {
                continue;
            }
        }
    }

    /** The largest checkpoint of {@code origin} accepted so far, or {@code null}. */
    synchronized VerifiedCheckpoint largest(String origin) {
        return largest.get(origin);
    }

    /**
     * Steps 1–3 for {@code document} and its proof; nothing changes until {@link #keep} is called with the
     * decision's checkpoint.
     *
     * @param tiles fetches a tile of the log (for the consistency proof)
     */
    LogDecision check(byte[] document, byte[] proofBytes, TileReader.Fetcher tiles) {
        LogProof proof;
        Checkpoint checkpoint;
        try {
            proof = LogProof.parse(proofBytes);
            checkpoint = Checkpoint.parse(proof.checkpoint().text());
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        VerifiedCheckpoint before = largest(checkpoint.origin());
        List<byte[]> consistency = new ArrayList<>();
        if (before != null && before.checkpoint().size() != checkpoint.size()) {
            long small = Math.min(before.checkpoint().size(), checkpoint.size());
            long large = Math.max(before.checkpoint().size(), checkpoint.size());
            try {
                consistency = new TileReader(large, tiles).consistencyProof(small, large);
            } catch (LogError e) {
                return LogDecision.refused(e);
            }
        }
        return verifier().decide(document, proof, before, consistency);
    }

    /**
     * Steps 1–3 for the document served at {@code path} ({@code /pins/{host}} or {@code /trust/{n}}): fetches
     * {@code path + "/proof"} (whose ETag must be the document's {@code etag}, when both are given, or the document
     * changed in between) and the tiles a consistency proof needs.
     *
     * @throws IOException when the proof or a tile cannot be fetched (retried later; nothing changes)
     */
    LogDecision fetchAndCheck(String path, byte[] document, String etag) throws IOException {
        String url = server + path + "/proof";
        TransportResponse proof = transport.get(url, Collections.singletonMap("Accept", "text/plain"));
        if (proof.status() != 200) throw new IOException("GET " + url + " answered " + proof.status());
        String proofEtag = proof.header("etag");
        if (etag != null && proofEtag != null && !etag.equals(proofEtag)) {
            throw new IOException("the proof at " + url + " is for another document (ETag " + proofEtag + ", not " + etag
                    + "); the document changed meanwhile, retried");
        }
        String origin;
        try {
            origin = Checkpoint.parse(LogProof.parse(proof.body()).checkpoint().text()).origin();
        } catch (LogError e) {
            origin = "";
        }
        String given = policy.logUrl(origin);
        String base = given != null ? (given.endsWith("/") ? given.substring(0, given.length() - 1) : given) : server + "/log";
        return check(document, proof.body(), tile -> fetchTile(base, tile));
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

    /** Keeps {@code checkpoint} as its log's largest (if it is larger) and persists it. */
    synchronized void keep(VerifiedCheckpoint checkpoint) throws IOException {
        String origin = checkpoint.checkpoint().origin();
        VerifiedCheckpoint before = largest.get(origin);
        if (before != null && before.checkpoint().size() >= checkpoint.checkpoint().size()) return;
        largest.put(origin, checkpoint);
        if (storage != null) storage.saveCheckpoint(origin, checkpoint.note().bytes());
    }
}
