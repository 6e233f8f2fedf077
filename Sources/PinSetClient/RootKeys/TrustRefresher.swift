import Foundation
import Locking
import PinSetCore

/// The updater's trust half (PROTOCOL §6.2): fetches `GET /trust`, walks `/trust/{n}` one version at a time,
/// advances the ``TrustStore``, persists what it accepted and reports to the updater's events.
final class TrustRefresher: Sendable {
    struct State {
        var etag: String?
        var failures = 0
        var loop: Task<Void, Never>?
    }

    let store: TrustStore
    let verifier: TrustDocumentVerifier
    private let server: URL
    private let transport: any PinSetTransport
    private let storage: PinStorage?
    private let clock: @Sendable () -> Date
    private let events: UpdateEventSink
    /// With a tlog-policy: every trust document walked needs its proof (PROTOCOL §7.4).
    private let log: LogAuditor?
    private let state = Locked(State())

    init(
        store: TrustStore, server: URL, transport: any PinSetTransport, storage: PinStorage?,
        clock: @escaping @Sendable () -> Date, events: UpdateEventSink, skew: TimeInterval,
        log: LogAuditor? = nil
    ) {
        self.store = store
        self.verifier = TrustDocumentVerifier(skew: skew)
        self.server = server
        self.transport = transport
        self.storage = storage
        self.clock = clock
        self.events = events
        self.log = log
    }

    /// The trust half of an updater whose manager has a ``TrustStore``; `nil` for one without root keys.
    static func make(
        _ manager: PinTrustManager, server: URL, transport: any PinSetTransport, storage: PinStorage?,
        clock: @escaping @Sendable () -> Date, events: UpdateEventSink, log: LogAuditor?
    ) -> TrustRefresher? {
        guard let store = manager.trustStore else { return nil }
        return TrustRefresher(
            store: store, server: server, transport: transport, storage: storage, clock: clock, events: events,
            skew: manager.options.skew, log: log)
    }

    func yield(_ event: UpdateEvent) { events.yield(event) }

    /// Re-verifies the stored chain from the shipped state (no time check: those versions were accepted once)
    /// and installs the newest version reached.
    func loadPersisted() {
        guard let storage else { return }
        let shipped = store.shipped
        var reached = shipped
        for bytes in storage.loadTrustChain(after: shipped.version) {
            guard case .success(let next) = verifier.verifyNext(bytes, after: reached) else { break }
            reached = next
        }
        if store.advance(to: reached) != nil { events.yield(.trustLoaded(version: reached.version)) }
    }

    /// Starts the periodic refresh: at once, then at the `max-age` of `/trust` (or the default interval).
    func start(_ updater: PinSetUpdater) {
        let task = Task { [weak updater] in
            while !Task.isCancelled {
                guard let updater else { return }
                let delay = await updater.pollTrust()
                do { try await Task.sleep(for: .seconds(delay)) } catch { return }
            }
        }
        state.withLock { $0.loop = task }
    }

    /// Cancels the periodic refresh and waits for it.
    func stop() async {
        let task = state.withLock { state in
            defer { state.loop = nil }
            return state.loop
        }
        task?.cancel()
        await task?.value
    }

    /// One update: fetch `/trust`, walk to it, advance the store.
    /// - Returns: the state replaced when the trust advanced (`nil` otherwise), the `max-age` of `/trust`, and
    ///   the number of consecutive failures (for the backoff).
    func refresh() async -> (replaced: TrustState?, maxAge: Int?, failures: Int) {
        let before = store.current
        let url = server.appendingPathComponent("trust")
        var headers = ["Accept": "application/json"]
        if let etag = state.withLock({ $0.etag }) { headers["If-None-Match"] = etag }
        let response: TransportResponse
        do {
            response = try await transport.get(url, headers: headers)
        } catch let limit as TransportLimitError where limit.kind == .bodyTooLarge {
            return failed(.trustRejected(TrustRejection(.tooLarge, limit.description)), nil)
        } catch {
            return failed(.trustFetchFailed(UpdateError(.transport, "GET \(url.absoluteString) failed: \(error)")), nil)
        }
        switch response.status {
        case 200: break
        case 304: return succeeded(nil, response.maxAge)
        default:
            return failed(
                .trustFetchFailed(
                    UpdateError(
                        .httpStatus, status: response.status, "the server answered \(response.status) for /trust")),
                response.maxAge)
        }
        guard let newest = TrustRules.unverifiedPayload(response.body) else {
            let rejection: TrustRejection
            if case .failure(let refused) = verifier.verifyNext(response.body, after: before) {
                rejection = refused
            } else {
                rejection = TrustRejection(.malformed, "the trust document cannot be read")
            }
            return failed(.trustRejected(rejection), response.maxAge)
        }
        if newest.version < before.version {
            return failed(
                .trustRejected(
                    TrustRejection(
                        .rollback,
                        "/trust offers version \(newest.version), older than version \(before.version) in force")),
                response.maxAge)
        }
        if newest.version == before.version {
            if let inForce = before.document, !inForce.elementsEqual(response.body) {
                return equivocation(version: before.version, inForce: inForce, offered: response.body, response.maxAge)
            }
            state.withLock { $0.etag = response.headers["etag"] }
            return succeeded(nil, response.maxAge)
        }
        // Walk N+1, N+2, … one at a time; the body of /trust is the last step when it is within reach.
        let last = min(newest.version, before.version + verifier.maxSteps)
        var reached = before
        var accepted: [(Int, [UInt8])] = []
        for version in (before.version + 1)...last {
            let bytes: [UInt8]
            if version == newest.version {
                bytes = response.body
            } else {
                let stepURL = url.appendingPathComponent(String(version))
                do {
                    let step = try await transport.get(stepURL, headers: ["Accept": "application/json"])
                    guard step.status == 200 else {
                        return failed(
                            .trustFetchFailed(
                                UpdateError(
                                    .httpStatus, status: step.status,
                                    "the server answered \(step.status) for /trust/\(version)")), response.maxAge)
                    }
                    bytes = step.body
                } catch {
                    return failed(
                        .trustFetchFailed(UpdateError(.transport, "GET \(stepURL.absoluteString) failed: \(error)")),
                        response.maxAge)
                }
            }
            switch verifier.verifyNext(bytes, after: reached) {
            case .success(let next):
                if let refusal = await logged(bytes, version: version, state: next) {
                    return failed(refusal, response.maxAge)
                }
                reached = next
                accepted.append((version, bytes))
            case .failure(let rejection):
                return failed(.trustRejected(rejection), response.maxAge)
            }
        }
        if let rejection = verifier.checkTime(reached, now: clock()) {
            return failed(.trustRejected(rejection), response.maxAge)
        }
        guard let replaced = store.advance(to: reached) else { return succeeded(nil, response.maxAge) }
        if reached.version == newest.version { state.withLock { $0.etag = response.headers["etag"] } }
        if let storage {
            for (version, bytes) in accepted {
                do { try storage.saveTrust(bytes, version: version) } catch {
                    events.yield(.trustPersistenceFailed(error))
                    break
                }
            }
        }
        let dropped = Set(replaced.signingKeys.keys).subtracting(reached.signingKeys.keys).sorted()
        events.yield(.trustUpdated(version: reached.version, droppedKids: dropped))
        return succeeded(replaced, response.maxAge)
    }

    /// With a tlog-policy, PROTOCOL §7.4 for trust document `version`, which makes `state`: `nil` when its proof
    /// holds (under the policy's log keys and `state`'s `logKeys`; the larger checkpoint is kept at once: it is
    /// consistent and cosigned whether or not the walk completes), else the event that refuses the walk.
    private func logged(_ bytes: [UInt8], version: Int, state: TrustState) async -> UpdateEvent? {
        guard let log else { return nil }
        switch await log.check(
            bytes, document: "/trust/\(version)", trust: state, accept: { true })
        {
        case .accepted, .documentRefused: return nil
        case .notLogged(let detail):
            return .trustRejected(TrustRejection(.notLogged, "trust version \(version): \(detail)"))
        case .fork:
            return .trustRejected(
                TrustRejection(
                    .logFork,
                    "the proof of trust version \(version) has a checkpoint inconsistent with the largest accepted before: the log forked"
                ))
        case .fetchFailed(let error): return .trustFetchFailed(error)
        }
    }

    /// PROTOCOL §6.2: the version in force with other bytes. Signed by its own root keys, it is equivocation (both
    /// documents go to the application); otherwise it is just a malformed document. Either way nothing changes.
    private func equivocation(version: Int, inForce: [UInt8], offered: [UInt8], _ maxAge: Int?) -> (
        replaced: TrustState?, maxAge: Int?, failures: Int
    ) {
        if case .failure(let rejection) = TrustRules.verifySelfSigned(offered, crypto: SwiftCryptoTrust()) {
            return failed(.trustRejected(rejection), maxAge)
        }
        events.yield(.trustEquivocation(version: version, inForce: inForce, offered: offered))
        return failed(
            .trustRejected(
                TrustRejection(
                    .equivocation,
                    "/trust offers another document with version \(version), the version in force: two signed histories; the trust in force is kept"
                )), maxAge)
    }

    private func failed(_ event: UpdateEvent, _ maxAge: Int?) -> (replaced: TrustState?, maxAge: Int?, failures: Int) {
        events.yield(event)
        let failures = state.withLock { state in
            state.failures += 1
            return state.failures
        }
        return (nil, maxAge, failures)
    }

    private func succeeded(_ replaced: TrustState?, _ maxAge: Int?) -> (
        replaced: TrustState?, maxAge: Int?, failures: Int
    ) {
        state.withLock { $0.failures = 0 }
        return (replaced, maxAge, 0)
    }
}
