package dev.pinset;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Keeps the sets of a {@link PinSetStore} fresh, as the Swift client's {@code PinSetUpdater} does: polls
 * {@code GET {server}/pins/{host}} with {@code If-None-Match}, honours {@code Cache-Control: max-age} (clamped,
 * plus jitter), backs off exponentially on errors, persists every accepted document and reloads them on
 * {@link #start()}. With root keys it also walks {@code /trust} (PROTOCOL §6.2). A pin failure of an enforcing
 * set makes it fetch that host at once (at most once a minute) and classify the failure {@code staleSet} or
 * {@code unexpectedKey}; then it is reported. With a tlog-policy ({@link Configuration#logPolicy}) every fetched
 * document comes with its proof ({@code GET {server}/pins/{host}/proof}) and is accepted only if PROTOCOL §7.4 holds.
 *
 * <p>Runs on one daemon thread of its own; fetches are serialised. Listener calls happen on that thread.
 */
public final class PinSetUpdater {
    /** Polling configuration; every field but the server and the hosts has the Swift client's default. */
    public static final class Configuration {
        /** The pin server's base URL, e.g. {@code https://pins.example.com}. */
        public final String server;
        /** The hosts to keep sets for (normalised). */
        public final List<String> hosts;
        /** Refresh interval without max-age, seconds. Default 3600. */
        public long defaultRefreshSeconds = 3600;
        /** Floor for max-age, seconds. Default 60. */
        public long minimumRefreshSeconds = 60;
        /** Ceiling for max-age, seconds. Default 86 400. */
        public long maximumRefreshSeconds = 86_400;
        /** Random extra delay as a fraction of the delay. Default 0.1. */
        public double jitter = 0.1;
        /** First retry delay after an error, seconds; doubles per consecutive error. Default 5. */
        public long initialBackoffSeconds = 5;
        /** Cap of the retry delay, seconds. Default 3600. */
        public long maximumBackoffSeconds = 3600;
        /**
         * A C2SP tlog-policy (PROTOCOL §7.4; {@link LogPolicy#parse}). Default {@code null}: no transparency log.
         * With one, a document is accepted only with a proof that it is in the log, that the checkpoint is signed by
         * the policy's log (or a {@code logKeys} key of the trust document in force) and cosigned by a quorum of its
         * witnesses, and that the checkpoint is consistent with the largest one accepted before (which is persisted
         * with the documents). A fork is refused, reported ({@link UpdateEvent.Kind#LOG_FORK}, and to the set's
         * {@code reportUri} or the server's {@code /reports}), and the set in force stays.
         */
        public LogPolicy logPolicy;

        /** A configuration for {@code server} and {@code hosts}. */
        public Configuration(String server, List<String> hosts) {
            this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
            List<String> normalized = new ArrayList<>();
            for (String host : hosts) normalized.add(HostNames.normalizeLenient(host));
            this.hosts = Collections.unmodifiableList(normalized);
        }
    }

    private final Configuration configuration;
    private final PinSetStore store;
    private final PinSetTransport transport;
    private final PinStorage storage;
    private final PinFailureReporter reporter;
    private final LongSupplier clock;
    private final Consumer<UpdateEvent> listener;
    private final Map<String, String> etags = new ConcurrentHashMap<>();
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();
    private final Map<String, Long> failureRefreshes = new ConcurrentHashMap<>();
    /** The trust half, for a store configured with root keys (PROTOCOL §6); {@code null} otherwise. */
    private final TrustRefresher trust;
    /** The transparency-log checks (PROTOCOL §7.4) with a policy; {@code null} otherwise. */
    private final LogCheckpoints log;
    private ScheduledExecutorService executor;

    /**
     * Creates an updater; nothing happens until {@link #start()}.
     *
     * @param transport the HTTP client ({@link UrlConnectionTransport} when {@code null})
     * @param storage where accepted documents are persisted; {@code null} keeps them in memory only
     * @param reporter posts a report per pin failure; {@code null} sends none
     * @param clock epoch milliseconds ({@code System::currentTimeMillis} when {@code null})
     * @param listener receives every {@link UpdateEvent}; {@code null} for none
     */
    public PinSetUpdater(Configuration configuration, PinSetStore store, PinSetTransport transport,
            PinStorage storage, PinFailureReporter reporter, LongSupplier clock, Consumer<UpdateEvent> listener) {
        this.configuration = configuration;
        this.store = store;
        this.transport = transport == null ? new UrlConnectionTransport() : transport;
        this.storage = storage;
        this.reporter = reporter;
        this.clock = clock == null ? System::currentTimeMillis : clock;
        this.listener = listener == null ? event -> {} : listener;
        store.expectSets(configuration.hosts);
        log = configuration.logPolicy == null ? null : new LogCheckpoints(configuration.logPolicy,
                store.verifier().ed25519(), store.verifier().trustStore(), storage, configuration.server, this.transport,
                e -> emit(UpdateEvent.of(UpdateEvent.Kind.PERSISTENCE_FAILED, null, 0, e.getMessage())));
        trust = store.verifier().trustStore() == null ? null
                : new TrustRefresher(store.verifier(), configuration.server, this.transport, storage, this.clock, this::emit,
                        log, (document, fork) -> reportFork(null, document, fork));
    }

    /** Reloads persisted documents, watches pin failures, then polls every host (and /trust with root keys). */
    public synchronized void start() {
        if (executor != null) return;
        executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pinset-updater");
            thread.setDaemon(true);
            return thread;
        });
        loadPersisted();
        ScheduledExecutorService running = executor;
        store.observePinFailures(failure -> running.execute(() -> reportPinFailure(failure, 443)));
        if (trust != null) running.execute(() -> pollTrust(running));
        for (String host : configuration.hosts) running.execute(() -> poll(host, running));
    }

    /** Stops polling; in-flight work ends on its own. Not restartable: create a new updater. */
    public synchronized void stop() {
        if (executor != null) executor.shutdownNow();
    }

    // A scheduled task that throws is never run again, so a bug must cost one round, not the polling: such a round
    // is retried after the longest backoff.

    private void poll(String host, ScheduledExecutorService running) {
        long delay = configuration.maximumBackoffSeconds * 1000;
        try {
            delay = fetch(host).delayMillis;
        } catch (RuntimeException bug) {
            emit(UpdateEvent.of(UpdateEvent.Kind.FETCH_FAILED, host, 0, "internal error: " + bug));
        }
        if (!running.isShutdown()) running.schedule(() -> poll(host, running), delay, TimeUnit.MILLISECONDS);
    }

    private void pollTrust(ScheduledExecutorService running) {
        long delay = configuration.maximumBackoffSeconds * 1000;
        try {
            TrustRefresher.Outcome outcome = updateTrust();
            if (outcome.replaced != null) refetchUndelegated(null);
            delay = nextDelayMillis(outcome.maxAge, outcome.failures, configuration, ThreadLocalRandom.current().nextDouble());
        } catch (RuntimeException bug) {
            emit(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0, "internal error: " + bug));
        }
        if (!running.isShutdown()) running.schedule(() -> pollTrust(running), delay, TimeUnit.MILLISECONDS);
    }

    /** Installs every persisted trust document and pin document (re-verified, freshness not checked). */
    public synchronized void loadPersisted() {
        if (storage == null) return;
        if (trust != null) trust.loadPersisted();
        if (log != null) log.loadPersisted();
        for (String host : configuration.hosts) {
            byte[] bytes = storage.load(host);
            if (bytes == null) continue;
            try {
                VerifiedDocument document = store.installTrusted(bytes, host);
                etags.put(host, etagOf(bytes));
                emit(UpdateEvent.of(UpdateEvent.Kind.LOADED, host, document.pinSet().version(), null));
            } catch (DocumentRejection ignored) {
                continue;
            }
        }
    }

    /** Fetches the document of {@code host} now and returns the event it produced. */
    public UpdateEvent refreshNow(String host) {
        return fetch(HostNames.normalizeLenient(host)).event;
    }

    /** Fetches {@code /trust} now and walks to it; returns whether the trust state advanced. */
    public boolean refreshTrust() {
        if (updateTrust().replaced == null) return false;
        refetchUndelegated(null);
        return true;
    }

    /**
     * Classifies a pin failure (for an enforcing set of a host this updater keeps: fetch that host at once, at most
     * once a minute, then evaluate the same chain again), then hands it to the listener and the reporter.
     */
    public PinFailure reportPinFailure(PinFailure failure, int port) {
        PinFailure result = failure;
        if (failure.enforce()) result = failure.classified(classify(failure));
        emit(UpdateEvent.pinFailure(result));
        if (reporter != null) reporter.submit(result, port, configuration.server + "/reports");
        return result;
    }

    private PinFailure.Classification classify(PinFailure failure) {
        String host = failure.notedHost();
        if (configuration.hosts.contains(host)) {
            long now = clock.getAsLong();
            Long started = failureRefreshes.get(host);
            if (started == null || now - started >= 60_000) {
                failureRefreshes.put(host, now);
                fetch(host);
            }
        }
        TrustDecision decision = store.evaluate(failure.chain(), failure.host(), clock.getAsLong(), false);
        AcceptedVersion version = store.acceptedVersion(host);
        if (decision.allowsConnection() && version != null && version.version() > failure.version()) {
            return PinFailure.Classification.STALE_SET;
        }
        return PinFailure.Classification.UNEXPECTED_KEY;
    }

    private static final class Fetched {
        final UpdateEvent event;
        final long delayMillis;

        Fetched(UpdateEvent event, long delayMillis) {
            this.event = event;
            this.delayMillis = delayMillis;
        }
    }

    private synchronized Fetched fetch(String host) {
        String url = configuration.server + "/pins/" + host;
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        String etag = etags.get(host);
        if (etag != null) headers.put("If-None-Match", etag);
        UpdateEvent event;
        Integer maxAge = null;
        try {
            TransportResponse response = transport.get(url, headers);
            maxAge = response.maxAge();
            event = handle(response, host);
        } catch (IOException | RuntimeException e) {
            event = UpdateEvent.of(UpdateEvent.Kind.FETCH_FAILED, host, 0, "GET " + url + " failed: " + e);
        }
        DocumentRejection rejection = event.rejection();
        if (rejection != null && trust != null
                && (rejection.code() == DocumentRejection.Code.UNKNOWN_KEY
                        || rejection.code() == DocumentRejection.Code.TRUST_EXPIRED)) {
            // The trust document may have moved on: walk it, then fetch this host once more.
            if (updateTrust().replaced != null) {
                refetchUndelegated(host);
                return fetch(host);
            }
        }
        boolean failed = event.kind() != UpdateEvent.Kind.UPDATED && event.kind() != UpdateEvent.Kind.NOT_MODIFIED;
        int count = failed ? failures.getOrDefault(host, 0) + 1 : 0;
        failures.put(host, count);
        emit(event);
        return new Fetched(event, nextDelayMillis(maxAge, count, configuration, ThreadLocalRandom.current().nextDouble()));
    }

    private UpdateEvent handle(TransportResponse response, String host) {
        if (response.status() == 304) return UpdateEvent.of(UpdateEvent.Kind.NOT_MODIFIED, host, 0, null);
        if (response.status() != 200) {
            return UpdateEvent.of(UpdateEvent.Kind.FETCH_FAILED, host, 0,
                    "the server answered " + response.status() + " for " + host);
        }
        if (log != null) return handleLogged(response, host);
        try {
            return updated(host, response, store.accept(response.body(), host, clock.getAsLong()));
        } catch (DocumentRejection rejection) {
            return UpdateEvent.rejected(host, rejection);
        }
    }

    /** Remembers the ETag of an accepted document and persists it. */
    private UpdateEvent updated(String host, TransportResponse response, VerifiedDocument document) {
        String etag = response.header("etag");
        etags.put(host, etag != null ? etag : etagOf(response.body()));
        if (storage != null) {
            try {
                storage.save(host, response.body());
            } catch (IOException e) {
                emit(UpdateEvent.of(UpdateEvent.Kind.PERSISTENCE_FAILED, host, 0, e.getMessage()));
            }
        }
        return UpdateEvent.of(UpdateEvent.Kind.UPDATED, host, document.pinSet().version(), null);
    }

    /**
     * A {@code 200} with a tlog-policy (PROTOCOL §7.4): the proof is fetched and checked, then the document is
     * accepted (§5) and the larger checkpoint kept, in one step; a refusal at any point changes nothing.
     */
    private UpdateEvent handleLogged(TransportResponse response, String host) {
        VerifiedDocument[] accepted = new VerifiedDocument[1];
        DocumentRejection[] refused = new DocumentRejection[1];
        LogDecision decision;
        try {
            decision = log.check("/pins/" + host, response.body(), response.header("etag"), null, () -> {
                try {
                    accepted[0] = store.accept(response.body(), host, clock.getAsLong());
                    return true;
                } catch (DocumentRejection rejection) {
                    refused[0] = rejection;
                    return false;
                }
            });
        } catch (IOException e) {
            return UpdateEvent.of(UpdateEvent.Kind.FETCH_FAILED, host, 0, e.getMessage());
        }
        if (decision.kind() == LogDecision.Kind.FORK) {
            reportFork(host, "/pins/" + host, decision);
            return UpdateEvent.rejected(host, new DocumentRejection(DocumentRejection.Code.LOG_FORK, "the proof's checkpoint"
                    + " (size " + sizeOf(decision.refused()) + ") is inconsistent with the largest accepted before: the log"
                    + " forked; the set in force is kept"), decision.error());
        }
        if (decision.kind() == LogDecision.Kind.REFUSED) {
            return UpdateEvent.rejected(host, new DocumentRejection(DocumentRejection.Code.NOT_LOGGED,
                    decision.error().getMessage()), decision.error());
        }
        if (refused[0] != null) return UpdateEvent.rejected(host, refused[0]);
        return updated(host, response, accepted[0]);
    }

    private static long sizeOf(SignedNote note) {
        try {
            return Checkpoint.parse(note.text()).size();
        } catch (LogError e) {
            return 0;
        }
    }

    /**
     * A fork seen on the proof of {@code document}: told to the listener with both notes, kept in the storage, and
     * posted to the configured pin server's /reports, never to a set's reportUri (PROTOCOL §7.4).
     */
    private void reportFork(String host, String document, LogDecision fork) {
        emit(UpdateEvent.logFork(host, document, fork));
        byte[] report = PinFailureReporter.logForkJson(document, fork);
        if (storage != null) {
            try {
                storage.saveFork(fork.kept(), report);
            } catch (IOException e) {
                emit(UpdateEvent.of(UpdateEvent.Kind.PERSISTENCE_FAILED, host, 0, e.getMessage()));
            }
        }
        if (reporter == null) return;
        // PROTOCOL §7.4: to the configured pin server, never to a reportUri from a document (the forking party may
        // have written the set in force).
        reporter.submitLogFork(report, null, configuration.server + "/reports");
    }

    private TrustRefresher.Outcome updateTrust() {
        return trust == null ? TrustRefresher.Outcome.NONE : trust.refresh();
    }

    /** Tells the app about, and re-fetches, every host whose set was signed by a key the trust no longer lists. */
    private void refetchUndelegated(String skipped) {
        for (String host : store.hostsSignedByUndelegatedKeys()) {
            if (!configuration.hosts.contains(host)) continue;
            VerifiedDocument document = store.document(host);
            emit(UpdateEvent.of(UpdateEvent.Kind.SIGNING_KEY_DROPPED, host, 0, document == null ? null : document.kid()));
            if (!host.equals(skipped)) fetch(host);
        }
    }

    void emit(UpdateEvent event) {
        try {
            listener.accept(event);
        } catch (RuntimeException ignored) {
            // A listener's bug must not stop the updater.
        }
    }

    /**
     * The delay before the next poll, in milliseconds: after a success, max-age (or the default) clamped to the
     * configured bounds; after {@code n} consecutive failures, {@code initialBackoff × 2^(n−1)} capped; either way
     * plus {@code jitter × random} of itself.
     */
    public static long nextDelayMillis(Integer maxAge, int consecutiveFailures, Configuration configuration, double random) {
        double base;
        if (consecutiveFailures > 0) {
            double exponent = Math.min(consecutiveFailures - 1, 40);
            base = Math.min(configuration.maximumBackoffSeconds, configuration.initialBackoffSeconds * Math.pow(2, exponent));
        } else {
            double wanted = maxAge != null ? maxAge : configuration.defaultRefreshSeconds;
            base = Math.min(configuration.maximumRefreshSeconds, Math.max(configuration.minimumRefreshSeconds, wanted));
        }
        return (long) (base * (1 + configuration.jitter * Math.min(Math.max(random, 0), 1)) * 1000);
    }

    /** The server's ETag for a body: {@code "} + base64url(first 18 bytes of SHA-256(body)) + {@code "}. */
    static String etagOf(byte[] body) {
        return "\"" + Base64Codec.encodeUrl(Arrays.copyOf(Sha256.hash(body), 18)) + "\"";
    }
}
