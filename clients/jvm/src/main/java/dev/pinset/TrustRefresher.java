package dev.pinset;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The updater's trust half (PROTOCOL §6.2), as in the Swift client: fetches {@code GET /trust}, walks
 * {@code /trust/{n}} one version at a time, refuses rollback and equivocation, advances the {@link TrustStore},
 * persists what it accepted and reports to the updater's listener.
 */
final class TrustRefresher {
    private final DocumentVerifier verifier;
    private final String server;
    private final PinSetTransport transport;
    private final PinStorage storage;
    private final LongSupplier clock;
    private final Consumer<UpdateEvent> emit;
    /** The transparency-log checks with a tlog-policy; {@code null} otherwise. */
    private final LogCheckpoints log;
    private final BiConsumer<String, LogDecision> reportFork;
    private String etag;
    private int failures;

    TrustRefresher(DocumentVerifier verifier, String server, PinSetTransport transport, PinStorage storage,
            LongSupplier clock, Consumer<UpdateEvent> emit, LogCheckpoints log, BiConsumer<String, LogDecision> reportFork) {
        this.verifier = verifier;
        this.server = server;
        this.transport = transport;
        this.storage = storage;
        this.clock = clock;
        this.emit = emit;
        this.log = log;
        this.reportFork = reportFork;
    }

    /** Re-verifies the stored chain from the shipped state (no time check) and installs the newest version reached. */
    synchronized void loadPersisted() {
        if (storage == null) return;
        TrustStore trust = verifier.trustStore();
        TrustState reached = trust.shipped();
        for (byte[] bytes : storage.loadTrustChain(reached.version())) {
            try {
                reached = TrustRules.verifyNext(bytes, reached, verifier.ed25519());
            } catch (TrustRejection rejection) {
                break;
            }
        }
        if (trust.advance(reached) != null) {
            emit.accept(UpdateEvent.of(UpdateEvent.Kind.TRUST_LOADED, null, reached.version(), null));
        }
    }

    /** What one update did: the state it replaced (or {@code null}), the max-age of /trust, consecutive failures. */
    static final class Outcome {
        static final Outcome NONE = new Outcome(null, null, 0);

        final TrustState replaced;
        final Integer maxAge;
        final int failures;

        Outcome(TrustState replaced, Integer maxAge, int failures) {
            this.replaced = replaced;
            this.maxAge = maxAge;
            this.failures = failures;
        }
    }

    /** One trust update: fetch {@code /trust}, walk {@code /trust/{n}} to it (PROTOCOL §6.2), advance the store. */
    synchronized Outcome refresh() {
        TrustStore trust = verifier.trustStore();
        TrustState before = trust.current();
        Ed25519Verifier ed25519 = verifier.ed25519();
        String url = server + "/trust";
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        if (etag != null) headers.put("If-None-Match", etag);
        TransportResponse response;
        try {
            response = transport.get(url, headers);
        } catch (IOException | RuntimeException e) {
            return failed(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0, "GET " + url + " failed: " + e), null);
        }
        Integer maxAge = response.maxAge();
        if (response.status() == 304) return succeeded(null, maxAge);
        if (response.status() != 200) {
            return failed(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0,
                    "the server answered " + response.status() + " for /trust"), maxAge);
        }
        byte[] body = response.body();
        Long newest = TrustRules.unverifiedVersion(body);
        if (newest == null) {
            try {
                TrustRules.verifyNext(body, before, ed25519);
                return failed(UpdateEvent.trustRejected(
                        new TrustRejection(TrustRejection.Code.MALFORMED, "the trust document cannot be read")), maxAge);
            } catch (TrustRejection rejection) {
                return failed(UpdateEvent.trustRejected(rejection), maxAge);
            }
        }
        if (newest < before.version()) {
            return failed(UpdateEvent.trustRejected(new TrustRejection(TrustRejection.Code.ROLLBACK, "/trust offers version "
                    + newest + ", older than version " + before.version() + " in force")), maxAge);
        }
        if (newest == before.version()) {
            byte[] inForce = before.documentBytes();
            if (inForce != null && !Arrays.equals(inForce, body)) {
                try {
                    TrustRules.verifySelfSigned(body, ed25519);
                } catch (TrustRejection rejection) {
                    return failed(UpdateEvent.trustRejected(rejection), maxAge);
                }
                emit.accept(UpdateEvent.equivocation(before.version(), inForce, body));
                return failed(UpdateEvent.trustRejected(new TrustRejection(TrustRejection.Code.EQUIVOCATION,
                        "/trust offers another document with version " + before.version()
                                + ", the version in force: two signed histories; the trust in force is kept")), maxAge);
            }
            etag = response.header("etag");
            return succeeded(null, maxAge);
        }
        long last = Math.min(newest, before.version() + TrustRules.MAX_WALK_STEPS);
        TrustState reached = before;
        List<byte[]> accepted = new ArrayList<>();
        for (long version = before.version() + 1; version <= last; version++) {
            byte[] bytes;
            if (version == newest) {
                bytes = body;
            } else {
                try {
                    TransportResponse step = transport.get(url + "/" + version, Collections.singletonMap("Accept", "application/json"));
                    if (step.status() != 200) {
                        return failed(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0,
                                "the server answered " + step.status() + " for /trust/" + version), maxAge);
                    }
                    bytes = step.body();
                } catch (IOException | RuntimeException e) {
                    return failed(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0,
                            "GET " + url + "/" + version + " failed: " + e), maxAge);
                }
            }
            try {
                reached = TrustRules.verifyNext(bytes, reached, ed25519);
                accepted.add(bytes);
            } catch (TrustRejection rejection) {
                return failed(UpdateEvent.trustRejected(rejection), maxAge);
            }
            if (log != null) {
                // PROTOCOL §7.4: a trust document too is accepted only with its proof, checked under the logKeys of
                // the state it makes (its root keys vouch for them). The larger checkpoint is kept at once: it is
                // consistent and cosigned whether or not the walk completes, as in the Swift client.
                LogDecision decision;
                try {
                    decision = log.check("/trust/" + version, bytes, version == newest ? response.header("etag") : null,
                            reached, () -> true);
                } catch (IOException | RuntimeException e) {
                    return failed(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, version,
                            "the proof of /trust/" + version + ": " + e.getMessage()), maxAge);
                }
                if (decision.kind() == LogDecision.Kind.FORK) {
                    reportFork.accept("/trust/" + version, decision);
                    return failed(UpdateEvent.trustRejected(new TrustRejection(TrustRejection.Code.LOG_FORK, "the proof of "
                            + "trust version " + version + " has a checkpoint inconsistent with the largest accepted before: "
                            + "the log forked"), decision.error()), maxAge);
                }
                if (decision.kind() == LogDecision.Kind.REFUSED) {
                    return failed(UpdateEvent.trustRejected(new TrustRejection(TrustRejection.Code.NOT_LOGGED, "trust version "
                            + version + ": " + decision.error().getMessage()), decision.error()), maxAge);
                }
            }
        }
        TrustRejection late = TrustRules.checkTime(reached, clock.getAsLong(), verifier.skewMillis());
        if (late != null) return failed(UpdateEvent.trustRejected(late), maxAge);
        TrustState replaced = trust.advance(reached);
        if (replaced == null) return succeeded(null, maxAge);
        if (reached.version() == newest) etag = response.header("etag");
        if (storage != null) {
            long version = before.version();
            for (byte[] bytes : accepted) {
                try {
                    storage.saveTrust(++version, bytes);
                } catch (IOException e) {
                    emit.accept(UpdateEvent.of(UpdateEvent.Kind.PERSISTENCE_FAILED, null, version, e.getMessage()));
                    break;
                }
            }
        }
        TreeSet<String> dropped = new TreeSet<>(replaced.signingKeys().keySet());
        dropped.removeAll(reached.signingKeys().keySet());
        emit.accept(UpdateEvent.trustUpdated(reached.version(), new ArrayList<>(dropped)));
        return succeeded(replaced, maxAge);
    }

    private Outcome failed(UpdateEvent event, Integer maxAge) {
        emit.accept(event);
        return new Outcome(null, maxAge, ++failures);
    }

    private Outcome succeeded(TrustState replaced, Integer maxAge) {
        failures = 0;
        return new Outcome(replaced, maxAge, 0);
    }
}
