package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Sha256;
import dev.pinset.internal.HostNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.annotation.Nullable;

/**
 * Keeps the sets of a {@link PinSetStore} fresh, as the Swift client's {@code PinSetUpdater} does: polls
 * {@code GET {server}/pins/{host}} with {@code If-None-Match}, honours {@code Cache-Control: max-age} (clamped,
 * plus jitter), backs off exponentially on errors, persists every accepted document and reloads them after
 * {@link #start()}. With root keys it also walks {@code /trust} (PROTOCOL §6.2). A pin failure of an enforcing
 * set makes it fetch that host at once (at most once a minute) and classify the failure {@code staleSet} or
 * {@code unexpectedKey}; then it is reported. With a tlog-policy ({@link Builder#logPolicy}) every fetched
 * document comes with its proof ({@code GET {server}/pins/{host}/proof}) and is accepted only if PROTOCOL §7.4 holds.
 *
 * <pre>{@code
 * PinSetUpdater updater = PinSetUpdater.builder("https://pins.example.com", store)
 *         .hosts("api.example.com")
 *         .storage(new PinStorage(new File(context.getNoBackupFilesDir(), "pinset")))
 *         .build();
 * updater.addListener(event -> Log.i("pinset", event.toString()), mainExecutor);
 * updater.start();   // returns at once: the persisted sets load on the updater's thread
 * }</pre>
 *
 * <p>Runs on one daemon thread of its own; fetches are serialised. Nothing but {@link #loadPersisted()},
 * {@link #refreshNow}, {@link #refreshTrust()} and {@link #awaitFirstSet} (whose names or docs say they block) does
 * I/O or waits on the caller's thread. Every event is also logged through {@code java.util.logging} (logger
 * {@code dev.pinset}; Android sends it to logcat): refusals and failures at {@code WARNING}, accepted sets at
 * {@code INFO}, the rest at {@code FINE}. Events carry host names, versions and public pin hashes only, never a key
 * or a token.
 */
public final class PinSetUpdater {
    private static final Logger LOG = Logger.getLogger("dev.pinset");

    /**
     * Polling configuration; every field but the server and the hosts has the Swift client's default.
     *
     * @deprecated mutable and positional: use {@link PinSetUpdater#builder(String, PinSetStore)}, whose setters have
     *     the same names and defaults. Kept for one release.
     */
    @Deprecated
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
         * with the documents). A fork is refused, reported ({@link UpdateEvent.Kind#LOG_FORK}, and to the
         * reporter's {@link PinFailureReporter#reportUri()} and the server's {@code /reports}, never a set's {@code reportUri}), and
         * the set in force stays; after a fork no document under that log key is accepted, across restarts, until a
         * trust document names another {@code logKeys} entry.
         */
        @Nullable public LogPolicy logPolicy;

        /** A configuration for {@code server} and {@code hosts}. */
        public Configuration(String server, List<String> hosts) {
            this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
            List<String> normalized = new ArrayList<>();
            for (String host : hosts) normalized.add(HostNames.normalizeLenient(host));
            this.hosts = Collections.unmodifiableList(normalized);
        }

        /** A copy, so that the updater's configuration cannot change under it. */
        Configuration copy() {
            Configuration copy = new Configuration(server, hosts);
            copy.defaultRefreshSeconds = defaultRefreshSeconds;
            copy.minimumRefreshSeconds = minimumRefreshSeconds;
            copy.maximumRefreshSeconds = maximumRefreshSeconds;
            copy.jitter = jitter;
            copy.initialBackoffSeconds = initialBackoffSeconds;
            copy.maximumBackoffSeconds = maximumBackoffSeconds;
            copy.logPolicy = logPolicy;
            return copy;
        }
    }

    /**
     * Makes a {@link PinSetUpdater}: {@link PinSetUpdater#builder(String, PinSetStore)}, then the setters whose
     * defaults do not suit, then {@link #build()}. Every setter returns this builder; none takes {@code null}.
     */
    public static final class Builder {
        private final String server;
        private final PinSetStore store;
        private final List<String> hosts = new ArrayList<>();
        private PinSetTransport transport = new UrlConnectionTransport();
        @Nullable private PinStorage storage;
        @Nullable private PinFailureReporter reporter;
        private LongSupplier clock = System::currentTimeMillis;
        private Executor listenerExecutor = DIRECT;
        @Nullable private LogPolicy logPolicy;
        private long defaultRefreshSeconds = 3600;
        private long minimumRefreshSeconds = 60;
        private long maximumRefreshSeconds = 86_400;
        private double jitter = 0.1;
        private long initialBackoffSeconds = 5;
        private long maximumBackoffSeconds = 3600;

        private Builder(String server, PinSetStore store) {
            this.server = checkServer(server);
            this.store = Objects.requireNonNull(store, "store");
        }

        /** Adds hosts to keep sets for (normalised; a configured host without a set is {@code setMissing}). */
        public Builder hosts(String... hosts) {
            return hosts(Arrays.asList(hosts));
        }

        /** Adds hosts to keep sets for. */
        public Builder hosts(Collection<String> hosts) {
            for (String host : hosts) this.hosts.add(HostNames.normalizeLenient(Objects.requireNonNull(host, "host")));
            return this;
        }

        /** The HTTP client. Default: {@link UrlConnectionTransport}. */
        public Builder transport(PinSetTransport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /** Where accepted documents are persisted. Default: none, in memory only. */
        public Builder storage(PinStorage storage) {
            this.storage = Objects.requireNonNull(storage, "storage");
            return this;
        }

        /** Posts a report per pin failure (and per log fork). Default: none. */
        public Builder reporter(PinFailureReporter reporter) {
            this.reporter = Objects.requireNonNull(reporter, "reporter");
            return this;
        }

        /** Epoch milliseconds. Default: {@code System::currentTimeMillis}. */
        public Builder clock(LongSupplier clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where listeners added without an executor run. Default: on the thread that emits the event (the updater's
         * own, or a caller of {@link #refreshNow}); keep such listeners quick.
         */
        public Builder listenerExecutor(Executor executor) {
            this.listenerExecutor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * A C2SP tlog-policy (PROTOCOL §7.4; {@link LogPolicy#parse}). Default: no transparency log. With one, a
         * document is accepted only with a proof that it is in the log, signed by the policy's log (or a
         * {@code logKeys} key of the trust document in force), cosigned by a quorum of its witnesses, and consistent
         * with the largest checkpoint accepted before (persisted with the documents). A fork is refused, reported
         * ({@link UpdateEvent.Kind#LOG_FORK}, and to the reporter's {@link PinFailureReporter#reportUri()} and the
         * server's {@code /reports}, never a set's {@code reportUri}), and the set in force stays; after a fork no
         * document under that log key is accepted, across restarts, until a trust document names another
         * {@code logKeys} entry. The store's own install paths (bundled documents) then pass the same checks
         * ({@link PinSetStore#installBundledDocuments(java.io.File, LogPolicy)}).
         */
        public Builder logPolicy(LogPolicy policy) {
            this.logPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Refresh interval when the server sends no max-age, seconds (at least 1). Default 3600. */
        public Builder defaultRefreshSeconds(long seconds) {
            this.defaultRefreshSeconds = positive(seconds, "defaultRefreshSeconds");
            return this;
        }

        /** Floor and ceiling for max-age, seconds ({@code 1 <= minimum <= maximum}). Defaults 60 and 86 400. */
        public Builder refreshBounds(long minimumSeconds, long maximumSeconds) {
            positive(minimumSeconds, "minimumRefreshSeconds");
            if (maximumSeconds < minimumSeconds) {
                throw new IllegalArgumentException("maximumRefreshSeconds (" + maximumSeconds
                        + ") is below minimumRefreshSeconds (" + minimumSeconds + ")");
            }
            this.minimumRefreshSeconds = minimumSeconds;
            this.maximumRefreshSeconds = maximumSeconds;
            return this;
        }

        /** Random extra delay as a fraction of each delay, 0 to 1. Default 0.1. */
        public Builder jitter(double fraction) {
            if (!(fraction >= 0 && fraction <= 1)) throw new IllegalArgumentException("jitter must be within 0 and 1");
            this.jitter = fraction;
            return this;
        }

        /**
         * First retry delay after an error (doubling per consecutive error) and its cap, seconds
         * ({@code 1 <= initial <= maximum}). Defaults 5 and 3600.
         */
        public Builder backoff(long initialSeconds, long maximumSeconds) {
            positive(initialSeconds, "initialBackoffSeconds");
            if (maximumSeconds < initialSeconds) {
                throw new IllegalArgumentException("maximumBackoffSeconds (" + maximumSeconds
                        + ") is below initialBackoffSeconds (" + initialSeconds + ")");
            }
            this.initialBackoffSeconds = initialSeconds;
            this.maximumBackoffSeconds = maximumSeconds;
            return this;
        }

        /** The updater; nothing happens until {@link PinSetUpdater#start()}. */
        public PinSetUpdater build() {
            Configuration configuration = new Configuration(server, hosts);
            configuration.defaultRefreshSeconds = defaultRefreshSeconds;
            configuration.minimumRefreshSeconds = minimumRefreshSeconds;
            configuration.maximumRefreshSeconds = maximumRefreshSeconds;
            configuration.jitter = jitter;
            configuration.initialBackoffSeconds = initialBackoffSeconds;
            configuration.maximumBackoffSeconds = maximumBackoffSeconds;
            configuration.logPolicy = logPolicy;
            return new PinSetUpdater(configuration, store, transport, storage, reporter, clock, listenerExecutor);
        }

        private static long positive(long value, String name) {
            if (value < 1) throw new IllegalArgumentException(name + " must be at least 1 second");
            return value;
        }

        private static String checkServer(String server) {
            Objects.requireNonNull(server, "server");
            if (!server.startsWith("https://") && !server.startsWith("http://")) {
                throw new IllegalArgumentException("the pin server must be an http(s) URL, e.g. https://pins.example.com");
            }
            // The URL appears in events and log lines: it must not carry credentials (the pin server needs none).
            String authority = server.substring(server.indexOf("//") + 2).split("[/?#]", 2)[0];
            if (authority.contains("@")) {
                throw new IllegalArgumentException("the pin server URL must not contain credentials (user:password@)");
            }
            return server;
        }
    }

    /** Runs a task on the calling thread. */
    private static final Executor DIRECT = Runnable::run;

    /** A listener and the executor it runs on. */
    private static final class Registration {
        final Consumer<UpdateEvent> listener;
        final Executor executor;

        Registration(Consumer<UpdateEvent> listener, Executor executor) {
            this.listener = listener;
            this.executor = executor;
        }
    }

    private final Configuration configuration;
    private final PinSetStore store;
    private final PinSetTransport transport;
    @Nullable private final PinStorage storage;
    @Nullable private final PinFailureReporter reporter;
    private final LongSupplier clock;
    private final Executor listenerExecutor;
    private final List<Registration> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, String> etags = new ConcurrentHashMap<>();
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();
    private final Map<String, Long> failureRefreshes = new ConcurrentHashMap<>();
    /** The trust half, for a store configured with root keys (PROTOCOL §6); {@code null} otherwise. */
    @Nullable private final TrustRefresher trust;
    /** The transparency-log checks (PROTOCOL §7.4) with a policy; {@code null} otherwise. */
    @Nullable private final LogCheckpoints log;
    /** The updater's one thread: created here, started by the first task ({@link #start()} or a refreshAsync). */
    private final ScheduledThreadPoolExecutor executor;
    private final Consumer<PinFailure> failureObserver;
    private boolean started;

    /** A builder for an updater of {@code store}'s sets from the pin server at {@code server} (an http(s) URL). */
    public static Builder builder(String server, PinSetStore store) {
        return new Builder(server, store);
    }

    /**
     * Creates an updater; nothing happens until {@link #start()}.
     *
     * @param transport the HTTP client ({@link UrlConnectionTransport} when {@code null})
     * @param storage where accepted documents are persisted; {@code null} keeps them in memory only
     * @param reporter posts a report per pin failure; {@code null} sends none
     * @param clock epoch milliseconds ({@code System::currentTimeMillis} when {@code null})
     * @param listener receives every {@link UpdateEvent} on the emitting thread; {@code null} for none
     * @deprecated positional {@code null}s: use {@link #builder(String, PinSetStore)} and
     *     {@link #addListener(Consumer)}. Kept for one release.
     */
    @Deprecated
    public PinSetUpdater(Configuration configuration, PinSetStore store, @Nullable PinSetTransport transport,
            @Nullable PinStorage storage, @Nullable PinFailureReporter reporter, @Nullable LongSupplier clock,
            @Nullable Consumer<UpdateEvent> listener) {
        this(configuration.copy(), store, transport == null ? new UrlConnectionTransport() : transport, storage,
                reporter, clock == null ? System::currentTimeMillis : clock, DIRECT);
        if (listener != null) addListener(listener);
    }

    private PinSetUpdater(Configuration configuration, PinSetStore store, PinSetTransport transport,
            @Nullable PinStorage storage, @Nullable PinFailureReporter reporter, LongSupplier clock,
            Executor listenerExecutor) {
        this.configuration = configuration;
        this.store = store;
        this.transport = transport;
        this.storage = storage;
        this.reporter = reporter;
        this.clock = clock;
        this.listenerExecutor = listenerExecutor;
        store.expectSets(configuration.hosts);
        log = configuration.logPolicy == null ? null : new LogCheckpoints(configuration.logPolicy,
                store.verifier().ed25519(), store.verifier().trustStore(), storage, configuration.server, this.transport,
                e -> emit(UpdateEvent.of(UpdateEvent.Kind.PERSISTENCE_FAILED, null, 0, e.getMessage())),
                (document, fork) -> reportFork(document.startsWith("/pins/") ? document.substring(6) : null, document,
                        fork));
        // PROTOCOL §7.4: every path that installs a document in the store (bundled ones included) now passes through
        // the same log checks and fork block as a fetched one.
        if (log != null) store.useLog(log);
        trust = store.verifier().trustStore() == null ? null
                : new TrustRefresher(store.verifier(), configuration.server, this.transport, storage, this.clock, this::emit,
                        log, (document, fork) -> reportFork(null, document, fork));
        executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "pinset-updater");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        failureObserver = failure -> {
            try {
                executor.execute(() -> reportPinFailure(failure, 443));
            } catch (RejectedExecutionException stopped) {
                // Stopped: the failure was refused all the same; nobody polls any more.
            }
        };
    }

    /**
     * Starts in the background and returns at once, doing no I/O on the caller's thread: the updater's thread
     * reloads the persisted documents ({@link UpdateEvent.Kind#LOADED}), then polls every host (and /trust with root
     * keys); pin failures are watched from now on. Until a set is in force a configured host is {@code setMissing}:
     * wait with {@link #awaitFirstSet} (off the main thread) where a request must not be refused for that. A second
     * call does nothing.
     */
    public synchronized void start() {
        if (started || executor.isShutdown()) return;
        started = true;
        store.observePinFailures(failureObserver);
        // One task: the caller pays for one hand-over, whatever the number of hosts.
        executor.execute(() -> {
            try {
                loadPersisted();
            } catch (RuntimeException bug) {
                LOG.log(Level.WARNING, "pinset: loading the persisted documents failed", bug);
            }
            try {
                if (trust != null) executor.execute(this::pollTrust);
                for (String host : configuration.hosts) executor.execute(() -> poll(host));
            } catch (RejectedExecutionException stopped) {
                // stop() was called meanwhile.
            }
        });
    }

    /** Stops polling and watching pin failures; in-flight work ends on its own. Not restartable: build a new updater. */
    public synchronized void stop() {
        executor.shutdownNow();
        store.removePinFailureObserver(failureObserver);
    }

    /**
     * Adds a listener for every {@link UpdateEvent}, run on the builder's {@link Builder#listenerExecutor} (default:
     * the emitting thread). An exception it throws is logged ({@code WARNING}, logger {@code dev.pinset}), never
     * propagated to the updater.
     */
    public void addListener(Consumer<UpdateEvent> listener) {
        addListener(listener, listenerExecutor);
    }

    /**
     * Adds a listener run on {@code executor} (e.g. Android's {@code ContextCompat.getMainExecutor(context)}); its
     * exceptions are logged, never propagated. The same listener added twice is called twice.
     */
    public void addListener(Consumer<UpdateEvent> listener, Executor executor) {
        listeners.add(new Registration(Objects.requireNonNull(listener, "listener"),
                Objects.requireNonNull(executor, "executor")));
    }

    /** Removes one registration of {@code listener}; returns whether there was one. Events already queued still arrive. */
    public boolean removeListener(Consumer<UpdateEvent> listener) {
        for (Registration registration : listeners) {
            if (registration.listener == listener) return listeners.remove(registration);
        }
        return false;
    }

    /**
     * Fetches the document of {@code host} on the updater's thread; the future completes with the event it produced
     * (a failed fetch is an event too, never an exceptional completion), or exceptionally once the updater is stopped.
     */
    public CompletableFuture<UpdateEvent> refreshAsync(String host) {
        String name = HostNames.normalizeLenient(host);
        CompletableFuture<UpdateEvent> future = new CompletableFuture<>();
        submit(future, () -> fetch(name).event);
        return future;
    }

    /**
     * Fetches /trust (with root keys) and then every configured host on the updater's thread; the future completes
     * with one event per host, in the configured order.
     */
    public CompletableFuture<List<UpdateEvent>> refreshAsync() {
        CompletableFuture<List<UpdateEvent>> future = new CompletableFuture<>();
        submit(future, () -> {
            if (trust != null && updateTrust().replaced != null) refetchUndelegated(null);
            List<UpdateEvent> events = new ArrayList<>();
            for (String host : configuration.hosts) events.add(fetch(host).event);
            return events;
        });
        return future;
    }

    private <T> void submit(CompletableFuture<T> future, Supplier<T> work) {
        try {
            executor.execute(() -> {
                try {
                    future.complete(work.get());
                } catch (RuntimeException bug) {
                    future.completeExceptionally(bug);
                }
            });
        } catch (RejectedExecutionException stopped) {
            future.completeExceptionally(new IllegalStateException("the updater is stopped", stopped));
        }
    }

    /**
     * Blocks until every configured host has a set in force (loaded, bundled or fetched), at most {@code timeout}.
     * Never call it on Android's main thread.
     *
     * @return {@code true} when every host has a set; {@code false} when the time ran out first
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitFirstSet(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        Object signal = new Object();
        Runnable wake = () -> {
            synchronized (signal) {
                signal.notifyAll();
            }
        };
        store.onSetChange(wake);
        try {
            synchronized (signal) {
                while (!everyHostHasASet()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) return false;
                    TimeUnit.NANOSECONDS.timedWait(signal, left);
                }
                return true;
            }
        } finally {
            store.removeSetChangeListener(wake);
        }
    }

    private boolean everyHostHasASet() {
        for (String host : configuration.hosts) {
            if (store.pinSet(host) == null) return false;
        }
        return true;
    }

    // A scheduled task that throws is never run again, so a bug must cost one round, not the polling: such a round
    // is retried after the longest backoff.

    private void poll(String host) {
        long delay = configuration.maximumBackoffSeconds * 1000;
        try {
            delay = fetch(host).delayMillis;
        } catch (RuntimeException bug) {
            emit(UpdateEvent.of(UpdateEvent.Kind.FETCH_FAILED, host, 0, "internal error: " + bug));
        }
        reschedule(() -> poll(host), delay);
    }

    private void pollTrust() {
        long delay = configuration.maximumBackoffSeconds * 1000;
        try {
            TrustRefresher.Outcome outcome = updateTrust();
            if (outcome.replaced != null) refetchUndelegated(null);
            delay = nextDelayMillis(outcome.maxAge, outcome.failures, configuration, ThreadLocalRandom.current().nextDouble());
        } catch (RuntimeException bug) {
            emit(UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0, "internal error: " + bug));
        }
        reschedule(this::pollTrust, delay);
    }

    private void reschedule(Runnable task, long delayMillis) {
        try {
            executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopped) {
            // stop() was called meanwhile.
        }
    }

    /**
     * Installs every persisted trust document and pin document (re-verified, freshness not checked). Blocks: it reads
     * the storage on the caller's thread ({@link #start()} does it on the updater's thread).
     */
    public synchronized void loadPersisted() {
        if (storage == null) return;
        if (trust != null) trust.loadPersisted();
        if (log != null) {
            log.loadPersisted();
            // A bundle the app installed before this updater knew the persisted forks: a set under a log key that
            // signed one was accepted after the fork, so it goes (PROTOCOL §7.4); the persisted set comes back below.
            for (String host : store.dropBundledSetsUnderForkedKeys(log)) {
                emit(UpdateEvent.rejected(host, new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "the bundled set"
                        + " of " + host + " is under a log key that signed a fork: dropped")));
            }
        }
        for (String host : configuration.hosts) {
            byte[] bytes = storage.load(host);
            if (bytes == null) continue;
            try {
                VerifiedDocument document = store.installPersisted(bytes, host);
                etags.put(host, etagOf(bytes));
                emit(UpdateEvent.of(UpdateEvent.Kind.LOADED, host, document.pinSet().version(), null));
            } catch (DocumentRejection ignored) {
                continue;
            }
        }
    }

    /** Fetches the document of {@code host} now, blocking the caller; returns the event it produced. See {@link #refreshAsync(String)}. */
    public UpdateEvent refreshNow(String host) {
        return fetch(HostNames.normalizeLenient(host)).event;
    }

    /** Fetches {@code /trust} now, blocking the caller, and walks to it; returns whether the trust state advanced. */
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
                    accepted[0] = store.acceptLogged(response.body(), host, clock.getAsLong());
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
     * posted to the reporter's own address and the configured pin server's /reports, never to a set's reportUri
     * (PROTOCOL §7.4).
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
        // PROTOCOL §7.4: to the application's report address and the configured pin server, never to a reportUri
        // from a document (the forking party may have written the set in force).
        reporter.submitLogFork(report, configuration.server + "/reports");
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
        Level level = levelOf(event.kind());
        if (LOG.isLoggable(level)) LOG.log(level, "pinset: " + event);
        for (Registration registration : listeners) {
            Runnable call = () -> {
                try {
                    registration.listener.accept(event);
                } catch (RuntimeException bug) {
                    // A listener's bug must not stop the updater, nor go unseen.
                    LOG.log(Level.WARNING, "pinset: an UpdateEvent listener threw on " + event.kind(), bug);
                }
            };
            try {
                registration.executor.execute(call);
            } catch (RuntimeException rejected) {
                LOG.log(Level.WARNING, "pinset: a listener's executor refused the " + event.kind() + " event", rejected);
            }
        }
    }

    private static Level levelOf(UpdateEvent.Kind kind) {
        switch (kind) {
            case UPDATED:
            case TRUST_UPDATED:
                return Level.INFO;
            case LOADED:
            case NOT_MODIFIED:
            case TRUST_LOADED:
                return Level.FINE;
            default:
                return Level.WARNING;
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
