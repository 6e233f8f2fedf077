import Crypto
import Foundation
import Locking
import PinSetCore
import TransparencyLog

/// Keeps the sets of a ``PinTrustManager`` fresh: polls `GET {server}/pins/{host}` for each configured host with
/// `If-None-Match`, honours `Cache-Control: max-age` (plus jitter), backs off exponentially on errors, persists
/// every accepted document and reloads them on ``start()``.
///
/// Rollback protection holds across restarts: persisted documents are installed first, so an older document
/// served later is refused. Cancel-safe: ``stop()`` cancels the polling tasks and waits for them.
public actor PinSetUpdater {
    /// Polling configuration. Every field but `server` and `hosts` has a default.
    public struct Configuration: Sendable {
        /// The pin server's base URL, e.g. `https://pins.example.com`.
        public var server: URL
        /// The hosts to keep sets for.
        public var hosts: [String]
        /// Refresh interval when the server sends no `max-age`. Default 3600 s.
        public var defaultRefreshInterval: TimeInterval
        /// Floor for `max-age` (a server cannot make clients hammer it). Default 60 s.
        public var minimumRefreshInterval: TimeInterval
        /// Ceiling for `max-age`. Default 86 400 s.
        public var maximumRefreshInterval: TimeInterval
        /// Random extra delay, as a fraction of the delay (0.1 = up to +10 %). Default 0.1.
        public var jitter: Double
        /// First retry delay after an error; doubles with each consecutive error. Default 5 s.
        public var initialBackoff: TimeInterval
        /// Cap of the retry delay. Default 3600 s.
        public var maximumBackoff: TimeInterval

        /// Creates a configuration.
        public init(
            server: URL, hosts: [String], defaultRefreshInterval: TimeInterval = 3600,
            minimumRefreshInterval: TimeInterval = 60, maximumRefreshInterval: TimeInterval = 86_400,
            jitter: Double = 0.1, initialBackoff: TimeInterval = 5, maximumBackoff: TimeInterval = 3600
        ) {
            self.server = server
            self.hosts = hosts.map { (try? HostName.normalize($0)) ?? $0 }
            self.defaultRefreshInterval = defaultRefreshInterval
            self.minimumRefreshInterval = minimumRefreshInterval
            self.maximumRefreshInterval = maximumRefreshInterval
            self.jitter = jitter
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    /// The manager updated sets go into.
    public let trustManager: PinTrustManager
    /// Updates and failures, in order. Buffers the newest 256 events if nobody listens; finishes on ``stop()``.
    ///
    /// - Warning: One stream: two loops reading it split the events between them. Call ``makeEventStream()`` for a
    ///   stream of your own instead.
    public nonisolated let events: AsyncStream<UpdateEvent>

    /// A stream of its own for each caller: every event from now on, in order, the newest 256 buffered if the
    /// caller does not keep up. It finishes on ``stop()`` (at once after it). Events sent before the call (a
    /// `.loaded` at start) are not replayed.
    public nonisolated func makeEventStream() -> AsyncStream<UpdateEvent> { continuation.subscribe() }

    /// Every event, synchronously on the thread that produced it (``PinningClient`` keeps its status this way).
    nonisolated func observeEvents(_ observer: @escaping @Sendable (UpdateEvent) -> Void) {
        continuation.observe(observer)
    }

    private let continuation: UpdateEventSink
    private let transport: any PinSetTransport
    private let storage: PinStorage?
    private let clock: @Sendable () -> Date
    private var etags: [String: String] = [:]
    /// The ETags of persisted documents installed after the launch (``installPersisted(deferring:)``), for the
    /// first `If-None-Match` of their hosts.
    private nonisolated let deferredETags = Locked<[String: String]>([:])
    private var consecutiveFailures: [String: Int] = [:]
    private var loops: [String: Task<Void, Never>] = [:]
    private let reporter: PinFailureReporter?
    private let onPinFailure: (@Sendable (PinFailure) -> Void)?
    /// The refresh a pin failure started for a host, and when: at most one a minute per host.
    private var failureRefreshes: [String: (started: Date, task: Task<Void, Never>)] = [:]
    private var observing = false
    /// The trust half, for a trust manager configured with root keys (PROTOCOL §6); `nil` otherwise.
    let trust: TrustRefresher?
    /// The transparency log checks, for a trust manager with a tlog-policy (PROTOCOL §7.4); `nil` otherwise.
    let log: LogAuditor?

    /// Creates an updater; nothing happens until ``start()``.
    /// - Parameters:
    ///   - configuration: server, hosts and timing.
    ///   - trustManager: where accepted sets go.
    ///   - transport: the HTTP client; default ``URLSessionTransport``.
    ///   - storage: where accepted documents are persisted; `nil` keeps them in memory only (no rollback
    ///     protection across restarts).
    ///   - reporter: posts a report for every pin failure, classified when the set enforces; `nil` sends none.
    ///   - clock: the time source, default `Date()`.
    ///   - onPinFailure: called with every pin failure once it is classified (``PinFailureClassification``;
    ///     report-only failures are not classified). The same failures go to ``events`` as ``UpdateEvent/pinFailure(_:)``.
    public init(
        configuration: Configuration, trustManager: PinTrustManager,
        transport: any PinSetTransport = URLSessionTransport(), storage: PinStorage? = nil,
        reporter: PinFailureReporter? = nil, clock: @escaping @Sendable () -> Date = { Date() },
        onPinFailure: (@Sendable (PinFailure) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.trustManager = trustManager
        self.transport = transport
        self.storage = storage
        self.reporter = reporter
        self.clock = clock
        self.onPinFailure = onPinFailure
        let (events, legacy) = AsyncStream.makeStream(of: UpdateEvent.self, bufferingPolicy: .bufferingNewest(256))
        self.events = events
        continuation = UpdateEventSink(legacy: legacy)
        trustManager.expectSets(for: configuration.hosts)
        log = LogAuditor.make(
            trustManager, server: configuration.server, transport: transport, storage: storage, reporter: reporter,
            clock: clock, events: continuation)
        trust = TrustRefresher.make(
            trustManager, server: configuration.server, transport: transport, storage: storage, clock: clock,
            events: continuation, log: log)
    }

    /// Reloads persisted documents into the trust manager, starts watching its pin failures (each is classified
    /// and reported, ``reportPinFailure(_:port:)``), then starts polling every host. Calling it twice does nothing
    /// the second time.
    public func start() {
        start(preloadedETags: nil)
    }

    /// ``start()``, without loading the persisted documents again when `preloadedETags` (what
    /// ``installPersisted()`` returned) says they were.
    func start(preloadedETags: [String: String]?) {
        guard loops.isEmpty else { return }
        if let preloadedETags {
            etags.merge(preloadedETags) { current, _ in current }
        } else {
            loadPersisted()
        }
        if !observing {
            observing = true
            trustManager.observePinFailures { [weak self] failure in
                guard let self else { return }
                Task { await self.reportPinFailure(failure) }
            }
        }
        trust?.start(self)
        for host in configuration.hosts {
            loops[host] = Task { [weak self] in
                while !Task.isCancelled {
                    guard let self else { return }
                    let delay = await self.poll(host)
                    do { try await Task.sleep(for: .seconds(delay)) } catch { return }
                }
            }
        }
    }

    /// Stops polling, waits for in-flight fetches to end, and finishes ``events``. An updater is not restartable:
    /// create a new one (it reloads the persisted documents).
    public func stop() async {
        let running = loops.values
        loops.removeAll()
        for task in running { task.cancel() }
        for task in running { await task.value }
        await trust?.stop()
        continuation.finish()
    }

    /// Installs every persisted document for the configured hosts (signature and host re-checked, freshness
    /// not: an expired one is a stale set). Called by ``start()``; public for apps that only want the reload.
    public func loadPersisted() {
        etags.merge(installPersisted()) { _, loaded in loaded }
    }

    /// What ``loadPersisted()`` does, callable synchronously from any thread (``PinningClient``'s initializer):
    /// installs the persisted trust documents, log checkpoints and pin documents and sends a `.loaded` event for
    /// each host. Returns the ETag of each document installed, for the first `If-None-Match`.
    ///
    /// With `deferring`, the pin documents are only registered (``PinTrustManager/deferTrusted(_:for:)``): each is
    /// read, checked and installed, its `.loaded` event sent and its ETag kept, when its host is first needed (at
    /// the latest by its first fetch). The launch then costs nothing per host.
    nonisolated func installPersisted(deferring: Bool = false) -> [String: String] {
        trust?.loadPersisted()
        log?.loadPersisted()
        guard let storage else { return [:] }
        var loaded: [String: String] = [:]
        if deferring {
            let continuation = continuation
            let etags = deferredETags
            for host in configuration.hosts {
                trustManager.deferTrusted(
                    DeferredDocument(
                        load: { storage.load(host: host) },
                        installed: { bytes, document in
                            etags.withLock { $0[host] = Self.etag(of: bytes) }
                            continuation.yield(.loaded(host: host, version: document.pinSet.version))
                        }), for: host)
            }
            return [:]
        }
        for host in configuration.hosts {
            guard let bytes = storage.load(host: host) else { continue }
            if case .success(let document) = trustManager.installTrusted(document: bytes, for: host) {
                loaded[host] = Self.etag(of: bytes)
                continuation.yield(.loaded(host: host, version: document.pinSet.version))
            }
        }
        return loaded
    }

    /// Fetches the document of `host` now (after a pin failure, or when the app knows the set changed).
    /// - Returns: the event this fetch produced (it is also sent to ``events``).
    @discardableResult
    public func refreshNow(host: String) async -> UpdateEvent {
        await fetch(host).event
    }

    /// Fetches every configured host now.
    @discardableResult
    public func refreshNow() async -> [UpdateEvent] {
        var result: [UpdateEvent] = []
        for host in configuration.hosts { result.append(await refreshNow(host: host)) }
        return result
    }

    /// Classifies a pin failure, then hands it to `onPinFailure`, ``events`` and the reporter.
    ///
    /// For an enforcing set whose host this updater keeps, it fetches that host's document at once (at most once
    /// a minute per host; a failure meanwhile waits for the same fetch) and evaluates the same chain against the
    /// set then in force: ``PinFailureClassification/staleSet`` if a newer set accepts it,
    /// ``PinFailureClassification/unexpectedKey`` if not. ``start()`` wires this to the trust manager; call it
    /// yourself only for an updater you do not start.
    /// - Parameters:
    ///   - failure: the failure as the trust manager saw it.
    ///   - port: the port the app connected to, for the report; default 443.
    /// - Returns: the failure with its classification.
    @discardableResult
    public func reportPinFailure(_ failure: PinFailure, port: Int = 443) async -> PinFailure {
        var failure = failure
        if failure.enforce { failure.classification = await classify(failure) }
        continuation.yield(.pinFailure(failure))
        onPinFailure?(failure)
        reporter?.submit(failure, port: port, fallbackReportURI: reportsURL)
        return failure
    }

    /// The pin server's `POST /reports`: where reports go when the set's `reportUri` is missing or fails.
    private var reportsURL: URL { configuration.server.appendingPathComponent("reports") }

    private func classify(_ failure: PinFailure) async -> PinFailureClassification {
        let host = failure.notedHost
        if configuration.hosts.contains(host) {
            let now = clock()
            if let running = failureRefreshes[host], now.timeIntervalSince(running.started) < 60 {
                await running.task.value
            } else {
                let task = Task { _ = await self.fetch(host) }
                failureRefreshes[host] = (now, task)
                await task.value
            }
        }
        let decision = trustManager.evaluate(chain: failure.chainDER, host: failure.host, now: clock(), notify: false)
        if decision.allowsConnection, let version = trustManager.acceptedVersion(for: host)?.version,
            version > failure.version
        {
            return .staleSet
        }
        return .unexpectedKey
    }

    private func poll(_ host: String) async -> TimeInterval {
        await fetch(host).delay
    }

    private func fetch(_ host: String) async -> (event: UpdateEvent, delay: TimeInterval) {
        let url = configuration.server.appendingPathComponent("pins").appendingPathComponent(host)
        var headers = ["Accept": "application/json"]
        if etags[host] == nil {
            // A persisted document deferred at launch: installed now, so that its ETag goes with this request.
            trustManager.resolveDeferred(hosts: [host])
            if let etag = deferredETags.withLock({ $0.removeValue(forKey: host) }) { etags[host] = etag }
        }
        if let etag = etags[host] { headers["If-None-Match"] = etag }
        let event: UpdateEvent
        var maxAge: Int?
        do {
            let response = try await transport.get(url, headers: headers)
            maxAge = response.maxAge
            if response.status == 200, let log {
                event = await handleLogged(response, host: host, log: log)
            } else {
                event = handle(response, host: host)
            }
        } catch let limit as TransportLimitError where limit.kind == .bodyTooLarge {
            // Refused like any other document over the limit (PROTOCOL §5 step 1), without reading the rest.
            event = .rejected(host: host, DocumentRejection(.tooLarge, limit.description))
        } catch {
            event = .fetchFailed(host: host, UpdateError(.transport, "GET \(url.absoluteString) failed: \(error)"))
        }
        if case .rejected(_, let rejection) = event, await trustAdvanced(after: rejection, host: host) {
            return await fetch(host)
        }
        let failed: Bool
        switch event {
        case .updated, .notModified: failed = false
        default: failed = true
        }
        let failures = failed ? consecutiveFailures[host, default: 0] + 1 : 0
        consecutiveFailures[host] = failures
        continuation.yield(event)
        let delay = Self.nextDelay(
            maxAge: maxAge, consecutiveFailures: failures, configuration: configuration,
            random: Double.random(in: 0...1))
        return (event, delay)
    }

    private func handle(_ response: TransportResponse, host: String) -> UpdateEvent {
        switch response.status {
        case 200:
            switch trustManager.accept(response.body, for: host, now: clock()) {
            case .success(let document):
                return accepted(document, etag: response.headers["etag"], host: host)
            case .failure(let rejection):
                return .rejected(host: host, rejection)
            }
        case 304:
            return .notModified(host: host)
        default:
            return .fetchFailed(
                host: host,
                UpdateError(.httpStatus, status: response.status, "the server answered \(response.status) for \(host)"))
        }
    }

    private func accepted(_ document: VerifiedDocument, etag: String?, host: String) -> UpdateEvent {
        etags[host] = etag ?? Self.etag(of: document.raw)
        if let storage {
            do { try storage.save(document.raw, for: host) } catch {
                continuation.yield(.persistenceFailed(host: host, error))
            }
        }
        return .updated(host: host, version: document.pinSet.version)
    }

    /// A `200` with a tlog-policy: the document is accepted only with its proof (PROTOCOL §7.4), fetched at once.
    private func handleLogged(_ response: TransportResponse, host: String, log: LogAuditor) async -> UpdateEvent {
        let result = Locked<Result<VerifiedDocument, DocumentRejection>?>(nil)
        let manager = trustManager
        let clock = clock
        let body = response.body
        // The proof has an ETag of its own (PROTOCOL §7.3); its leaf hash binds it to these bytes (§7.4 step 1).
        let outcome = await log.check(body, document: "/pins/\(host)") {
            let accepted = manager.accept(body, for: host, now: clock())
            result.withLock { $0 = accepted }
            if case .success = accepted { return true }
            return false
        }
        switch outcome {
        case .accepted, .documentRefused:
            switch result.withLock({ $0 }) {
            case .success(let document): return accepted(document, etag: response.headers["etag"], host: host)
            case .failure(let rejection): return .rejected(host: host, rejection)
            case nil: return .rejected(host: host, DocumentRejection(.notLogged, "the document was not checked"))
            }
        case .notLogged(let detail): return .rejected(host: host, DocumentRejection(.notLogged, detail))
        case .fork(let fork):
            return .rejected(
                host: host,
                DocumentRejection(
                    .logFork,
                    "the proof's checkpoint (size \((try? Checkpoint(text: fork.refused.text).size) ?? 0)) is inconsistent with the largest accepted before: the log forked; the set in force is kept"
                ))
        case .fetchFailed(let error): return .fetchFailed(host: host, error)
        }
    }

    /// The delay before the next poll: after a success, `max-age` (or the default interval) clamped to the
    /// configured bounds; after `n` consecutive failures, `initialBackoff × 2^(n−1)` capped at `maximumBackoff`.
    /// Either way plus `jitter × random` of itself (`random` in 0...1).
    public static func nextDelay(
        maxAge: Int?, consecutiveFailures: Int, configuration: Configuration, random: Double
    ) -> TimeInterval {
        let base: TimeInterval
        if consecutiveFailures > 0 {
            let exponent = Double(min(consecutiveFailures - 1, 40))
            base = min(configuration.maximumBackoff, configuration.initialBackoff * pow(2, exponent))
        } else {
            let wanted = maxAge.map(TimeInterval.init) ?? configuration.defaultRefreshInterval
            base = min(configuration.maximumRefreshInterval, max(configuration.minimumRefreshInterval, wanted))
        }
        return base * (1 + configuration.jitter * min(max(random, 0), 1))
    }

    /// The server's ETag for a body: `"` + base64url(first 18 bytes of SHA-256(body)) + `"`.
    static func etag(of body: [UInt8]) -> String {
        ETag.of(sha256: SHA256.hash(data: body))
    }
}
