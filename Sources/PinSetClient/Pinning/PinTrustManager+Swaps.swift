import Foundation
import PinSetCore

/// One set replacing another (or the first set of a host) in a ``PinTrustManager``.
public struct SetSwap: Sendable, Hashable {
    /// The host whose set changed.
    public let host: String
    /// The version replaced; `nil` when the host had no set.
    public let oldVersion: Int?
    /// The version now in force.
    public let newVersion: Int
    /// Whether the new set may refuse a chain the old one accepted: a pin dropped (an empty set drops them all:
    /// with ``PinningOptions/UnpinnedHostPolicy/deny`` it refuses everything), a pin expiring earlier, enforcement
    /// switched on, subdomains newly covered, or a first set. Conservative: replacing a session needlessly costs a
    /// handshake, keeping one wrongly costs the pin. A connection the old set allowed must then be checked again
    /// (a resumed TLS session presents no chain, so it is never evaluated again by itself).
    public let tightens: Bool

    init(host: String, replaced old: CompiledPolicy?, by new: CompiledPolicy) {
        self.host = host
        oldVersion = old?.set.version
        newVersion = new.set.version
        tightens = Self.tightens(from: old, to: new)
    }

    /// Whether `new` may refuse what `old` accepted (see ``tightens``).
    static func tightens(from old: CompiledPolicy?, to new: CompiledPolicy) -> Bool {
        guard let old else { return true }
        if new.set.enforce && !old.set.enforce { return true }
        if new.set.includeSubdomains && !old.set.includeSubdomains { return true }
        for pin in old.pins {
            let kept = new.pins.contains {
                $0.digest == pin.digest && $0.isCertificate == pin.isCertificate && $0.expiresAt >= pin.expiresAt
            }
            if !kept { return true }
        }
        return false
    }
}

/// A live connection a ``PinTrustManager`` checks again after each swap that tightens
/// (``PinTrustManager/trackConnection(host:chain:close:)``).
struct TrackedConnection: Sendable {
    let host: String
    let chain: [[UInt8]]
    let close: @Sendable () -> Void
}

extension PinTrustManager {
    /// Adds `observer`, called after every set swap (outside the lock, on the thread that installed the set;
    /// keep it quick). ``PinningClient`` recreates its URL sessions on a swap that ``SetSwap/tightens``.
    public func observeSetSwaps(_ observer: @escaping @Sendable (SetSwap) -> Void) {
        state.withLock { $0.swapObservers.append(observer) }
    }

    /// Adds `observer`, called with the host whenever an evaluation is refused as
    /// ``TrustDecision/setMissing(host:allowed:)`` (on the evaluating thread, outside the lock; keep it quick).
    /// ``PinningClient`` fetches that host's set then, at most once per ``PinningClient/Configuration/triggeredRefreshInterval``.
    public func observeMissingSets(_ observer: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.missingObservers.append(observer) }
    }

    /// Tracks a live connection to `host` whose *validated* `chain` (DER, leaf first) passed: after every swap
    /// that tightens, the chain is evaluated again against the sets then in force and, if they refuse it,
    /// `close` is called once and the connection is forgotten. A pinned connection therefore never outlives the
    /// set that allowed it. `PinSetNIO.connect` tracks every channel it returns.
    /// - Returns: a token for ``untrackConnection(_:)``, to call when the connection closes.
    public func trackConnection(
        host: String, chain: [[UInt8]], close: @escaping @Sendable () -> Void
    ) -> UInt64 {
        let connection = TrackedConnection(host: Self.normalized(host), chain: chain, close: close)
        return state.withLock { state in
            state.nextConnection += 1
            state.connections[state.nextConnection] = connection
            return state.nextConnection
        }
    }

    /// Forgets a connection tracked by ``trackConnection(host:chain:close:)``.
    public func untrackConnection(_ token: UInt64) {
        state.withLock { _ = $0.connections.removeValue(forKey: token) }
    }

    /// How many connections are tracked.
    public var trackedConnectionCount: Int { state.withLock { $0.connections.count } }

    /// Tells the observers, and closes every tracked connection the new sets refuse.
    func announce(_ swap: SetSwap) {
        let (observers, connections) = state.withLock { ($0.swapObservers, $0.connections) }
        if swap.tightens {
            let now = Date()
            var refused: [UInt64] = []
            for (token, connection) in connections {
                if !evaluate(chain: connection.chain, host: connection.host, now: now, notify: false).allowsConnection {
                    refused.append(token)
                }
            }
            let closing = state.withLock { state in refused.compactMap { state.connections.removeValue(forKey: $0) } }
            for connection in closing { connection.close() }
        }
        for observer in observers { observer(swap) }
    }

    func announceMissing(_ host: String) {
        for observer in state.withLock({ $0.missingObservers }) { observer(host) }
    }

    /// The configured hosts (``expectSets(for:)``) that hold no set yet, sorted.
    public var hostsMissingSets: [String] {
        resolveAllDeferred()
        return state.withLock { state in state.expected.filter { state.policies[$0] == nil }.sorted() }
    }
}
