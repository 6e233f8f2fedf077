import Foundation
import Locking
import PinSetCore

/// The one object an app holds: it pins, keeps the sets fresh, and tells the app what happened.
///
/// Create it once, at launch, with a ``Configuration``. The initializer takes in the persisted sets and the
/// bundled export **synchronously**, so the first request of the launch is pinned (no `.setMissing` race), then
/// starts polling. It costs little with many hosts: each host's documents are read and checked (every check) the
/// first time the host is needed, by a handshake, a status or its first fetch, and nothing is decided before. While it runs it keeps itself alive (an app that forgets to retain it still pins and polls)
/// until ``stop()``. It refreshes when the app comes to the foreground and when the network comes back (Apple
/// platforms), and when a connection is refused because a configured host has no set yet, each at most once per
/// ``Configuration/triggeredRefreshInterval`` per host.
///
/// ```swift
/// let pinning = try PinningClient(configuration: .init(
///     server: URL(string: "https://pins.example.com")!, hosts: ["api.example.com"],
///     trustedKeys: [try TrustedKey(spkiPEM: pinsetPublicKeyPEM)]))
/// ```
///
/// On Apple platforms, `makeSession(configuration:)` gives a pinned `URLSession` that is recreated whenever a
/// new set may refuse what the old one allowed; the adapters cover an app's own delegates. The six-type
/// wiring (``PinTrustManager``, ``PinSetUpdater``, ``PinStorage``, …) stays available through ``trustManager``
/// and ``updater``, or on its own.
public final class PinningClient: Sendable {
    /// The configuration in use.
    public let configuration: Configuration
    /// The manager holding the sets in force: what the adapters evaluate with.
    public let trustManager: PinTrustManager
    /// The updater polling the pin server.
    public let updater: PinSetUpdater

    struct State {
        var records: [String: HostRecord] = [:]
        var lastTriggered: [String: Date] = [:]
        var running = false
        /// After ``stop()``: no more triggered refreshes.
        var stopped = false
        var preloadedETags: [String: String]?
        /// Called on a swap that tightens (``onSetsTightened(_:)``, ``pinnedResource(make:retire:)``).
        var rotations: [UInt64: @Sendable (SetSwap) -> Void] = [:]
        var nextRotation: UInt64 = 0
        /// Undoes the platform hooks (notification observers, path monitor).
        var hooks: [@Sendable () -> Void] = []
    }

    let state = Locked(State())
    let clock: @Sendable () -> Date
    /// The pin failure of each URL session task that was refused (``failure(for:)``).
    let failures = TaskFailures()

    /// The clients running (``start()``), so that an app that forgets to retain one still pins and polls.
    private static let running = Locked<[ObjectIdentifier: PinningClient]>([:])

    /// Creates the client, takes in the persisted sets and the bundled export synchronously (each host's are read
    /// and checked when it is first needed), and (unless `startsPolling` is `false`) starts it (``start()``).
    /// - Parameters:
    ///   - configuration: server, hosts, keys, bundle, storage and policy.
    ///   - transport: the HTTP client for the pin server; default ``URLSessionTransport``.
    ///   - clock: the time source, default `Date()`.
    ///   - startsPolling: default `true`; `false` leaves the start to the app (tests, app extensions).
    ///   - onPinFailure: called with every pin failure once classified; the same failures reach ``events()``.
    /// - Throws: ``ConfigurationError`` when no document could ever be accepted or a host is not a DNS name.
    public convenience init(
        configuration: Configuration, transport: any PinSetTransport = URLSessionTransport(),
        clock: @escaping @Sendable () -> Date = { Date() }, startsPolling: Bool = true,
        onPinFailure: (@Sendable (PinFailure) -> Void)? = nil
    ) throws(ConfigurationError) {
        try self.init(
            configuration, transport: transport, clock: clock, startsPolling: startsPolling,
            onPinFailure: onPinFailure, requiresKeys: true)
    }

    /// A client holding fixed sets and nothing else, for an app's own tests and previews: no pin server, no
    /// storage, no polling. The sets are installed as compiled sets (``PinTrustManager/installCompiled(pinSet:)``)
    /// and their hosts are the configured hosts.
    ///
    /// ```swift
    /// let pinning = PinningClient(fixedSets: [
    ///     PinSet(host: "api.example.com", version: 1, issuedAt: .now, expiresAt: .now + 86_400,
    ///            pins: [Pin(sha256: try SPKIPin.sha256(ofCertificateDER: leafDER))])])
    /// ```
    /// - Parameters:
    ///   - sets: the sets, one per host.
    ///   - options: policy, default `PinningOptions()`.
    public convenience init(fixedSets sets: [PinSet], options: PinningOptions = PinningOptions()) {
        // Cannot throw: no keys are required and `PinSet` hosts are normalised already.
        try! self.init(
            Configuration(
                server: URL(string: "https://pins.invalid")!,
                hosts: sets.compactMap { try? HostName.normalize($0.host) },
                storageDirectory: nil,
                options: options, reportsPinFailures: false),
            transport: NoPinServer(), clock: { Date() }, startsPolling: false, onPinFailure: nil,
            requiresKeys: false)
        state.withLock { $0.stopped = true }  // nothing to refresh from
        for set in sets { trustManager.installCompiled(pinSet: set) }
    }

    init(
        _ configuration: Configuration, transport: any PinSetTransport, clock: @escaping @Sendable () -> Date,
        startsPolling: Bool, onPinFailure: (@Sendable (PinFailure) -> Void)?, requiresKeys: Bool
    ) throws(ConfigurationError) {
        guard !requiresKeys || !configuration.trustedKeys.isEmpty || !configuration.rootKeys.isEmpty else {
            throw ConfigurationError(
                code: .noKeys,
                description:
                    "no signing keys and no root keys: ship the pin server's public key (trustedKeys) or the root keys")
        }
        for host in configuration.hosts where (try? HostName.normalize(host)) == nil {
            throw ConfigurationError(code: .badHost, description: "\(host) is not a DNS name")
        }
        self.configuration = configuration
        self.clock = clock
        if configuration.rootKeys.isEmpty {
            trustManager = PinTrustManager(
                verifier: DocumentVerifier(trustedKeys: configuration.trustedKeys, skew: configuration.options.skew),
                options: configuration.options)
        } else {
            let store: TrustStore
            do {
                store = try TrustStore(rootKeys: configuration.rootKeys, threshold: configuration.rootKeyThreshold)
            } catch {
                throw ConfigurationError(code: .badRootKeys, description: "the root keys are refused: \(error)")
            }
            trustManager = PinTrustManager(
                trustStore: store, trustedKeys: configuration.trustedKeys, options: configuration.options)
        }
        updater = PinSetUpdater(
            configuration: .init(
                server: configuration.server, hosts: configuration.hosts,
                defaultRefreshInterval: configuration.defaultRefreshInterval,
                maximumBackoff: configuration.maximumBackoff),
            trustManager: trustManager, transport: transport,
            storage: configuration.storageDirectory.map(PinStorage.init(directory:)),
            reporter: configuration.reportsPinFailures ? PinFailureReporter() : nil, clock: clock,
            onPinFailure: onPinFailure)
        let state = self.state
        updater.observeEvents { event in
            state.withLock { _ = HostRecord.record(event, at: clock(), into: &$0.records) }
        }
        // Persisted first (the newest the app accepted), then the bundle: an older bundled document is refused
        // as a rollback and changes nothing. Each host's documents are read and checked when it is first needed
        // (PinTrustManager+Deferred.swift says why that is safe): the launch pays for the hosts it uses.
        let etags = updater.installPersisted(deferring: true)
        if let bundle = configuration.bundledExport { trustManager.deferBundledDocuments(directory: bundle) }
        state.withLock { $0.preloadedETags = etags }
        trustManager.observeMissingSets { [weak self] host in self?.refreshTriggered(hosts: [host]) }
        trustManager.observeSetSwaps { [weak self] swap in
            guard swap.tightens, let self else { return }
            for rotate in self.state.withLock({ Array($0.rotations.values) }) { rotate(swap) }
        }
        if startsPolling { start() }
    }

    /// Starts polling and the refresh hooks, and keeps the client alive until ``stop()``. Calling it again does
    /// nothing.
    public func start() {
        let etags: [String: String]? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            defer { state.preloadedETags = [:] }
            return state.preloadedETags ?? [:]
        }
        guard let etags else { return }
        Self.running.withLock { $0[ObjectIdentifier(self)] = self }
        let updater = updater
        Task { await updater.start(preloadedETags: etags) }
        let hooks = installPlatformHooks()
        state.withLock { $0.hooks.append(contentsOf: hooks) }
    }

    /// Stops polling and the hooks, waits for fetches in flight, finishes every ``events()`` stream, and lets
    /// the client go. Not restartable: create a new client (it loads what this one persisted).
    public func stop() async {
        let hooks = state.withLock { state in
            state.running = false
            state.stopped = true
            defer { state.hooks.removeAll() }
            return state.hooks
        }
        for undo in hooks { undo() }
        await updater.stop()
        _ = Self.running.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// Whether the client is running (between ``start()`` and ``stop()``).
    public var isRunning: Bool { state.withLock { $0.running } }

    /// A stream of its own for each caller with every event from now on (updates, refusals, pin failures,
    /// trust and log events), in order; the newest 256 are buffered if the caller does not keep up. Finishes on
    /// ``stop()``.
    public func events() -> AsyncStream<UpdateEvent> { updater.makeEventStream() }

    /// Waits until every configured host holds a set, fetching the missing ones now: for the rare first launch
    /// with nothing persisted or bundled. Returns at once when every host has a set. Suspends (never blocks a
    /// thread).
    /// - Parameter timeout: how long to wait at most.
    /// - Returns: `true` when every host holds a set, `false` at the timeout (the hosts still missing are in
    ///   ``hostsMissingSets``).
    @discardableResult
    public func ready(timeout: Duration) async -> Bool {
        let manager = trustManager
        if manager.hostsMissingSets.isEmpty { return true }
        let stream = events()  // subscribed before fetching, so that no update is missed
        if manager.hostsMissingSets.isEmpty { return true }
        // The fetches run on their own (a slow transport must not hold the timeout); a failure is retried by
        // the polling loop, and any later update wakes the wait below.
        let updater = updater
        Task { for host in manager.hostsMissingSets { await updater.refreshNow(host: host) } }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream where manager.hostsMissingSets.isEmpty { return true }
                return manager.hostsMissingSets.isEmpty
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return manager.hostsMissingSets.isEmpty
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || manager.hostsMissingSets.isEmpty
        }
    }

    /// The configured hosts that hold no set yet, sorted.
    public var hostsMissingSets: [String] { trustManager.hostsMissingSets }

    /// The status of every configured host, in configuration order.
    public var statuses: [PinSetHostStatus] { updater.configuration.hosts.map(status(for:)) }

    /// The status of `host` now.
    public func status(for host: String) -> PinSetHostStatus {
        let host = PinTrustManager.normalized(host)
        let record = state.withLock { $0.records[host] } ?? HostRecord()
        let set = trustManager.pinSet(for: host)
        let freshness: PinSetHostStatus.Freshness
        if let set {
            let staleAfter = set.expiresAt.addingTimeInterval(configuration.options.skew)
            freshness = clock() >= staleAfter ? .stale(since: staleAfter) : .fresh(expiresAt: set.expiresAt)
        } else {
            freshness = .missing
        }
        return PinSetHostStatus(
            host: host, version: set?.version, freshness: freshness, lastSuccess: record.lastSuccess,
            lastFailure: record.lastFailure, lastPinFailure: record.lastPinFailure)
    }

    /// Fetches every configured host now (ignores the rate limit).
    @discardableResult
    public func refreshNow() async -> [UpdateEvent] { await updater.refreshNow() }

    /// Call when the app comes to the foreground (done for you on Apple platforms with UIKit or AppKit):
    /// refreshes every host not refreshed this way within ``Configuration/triggeredRefreshInterval``.
    public func applicationWillEnterForeground() { refreshTriggered(hosts: updater.configuration.hosts) }

    /// Call when the network becomes reachable again (done for you on Apple platforms with `NWPathMonitor`):
    /// rate-limited like ``applicationWillEnterForeground()``.
    public func networkBecameAvailable() { refreshTriggered(hosts: updater.configuration.hosts) }

    /// Refreshes the hosts not refreshed by a trigger within the interval; returns the ones it started.
    @discardableResult
    func refreshTriggered(hosts: [String]) -> [String] {
        let now = clock()
        let interval = configuration.triggeredRefreshInterval
        let due: [String] = state.withLock { state in
            guard !state.stopped else { return [] }
            var due: [String] = []
            for host in hosts {
                let host = PinTrustManager.normalized(host)
                if let last = state.lastTriggered[host], now.timeIntervalSince(last) < interval { continue }
                state.lastTriggered[host] = now
                due.append(host)
            }
            return due
        }
        guard !due.isEmpty else { return [] }
        let updater = updater
        Task { for host in due { await updater.refreshNow(host: host) } }
        return due
    }
}

/// The transport of a client with fixed sets: there is no pin server.
private struct NoPinServer: PinSetTransport {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "a client with fixed sets has no pin server" }
    }

    func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse { throw Unavailable() }
}
