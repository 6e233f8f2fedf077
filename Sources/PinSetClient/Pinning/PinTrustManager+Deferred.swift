import Foundation
import PinSetCore

/// A persisted or bundled document registered at launch, read and checked only when its host is first needed
/// (``PinTrustManager/deferTrusted(_:for:)``).
struct DeferredDocument: Sendable {
    /// Reads the bytes; `nil` when there are none (no file, unreadable, too large).
    let load: @Sendable () -> [UInt8]?
    /// Called with the bytes and the document once installed (still inside the installation: it must not call
    /// back into the manager).
    let installed: (@Sendable ([UInt8], VerifiedDocument) -> Void)?

    init(
        load: @escaping @Sendable () -> [UInt8]?, installed: (@Sendable ([UInt8], VerifiedDocument) -> Void)? = nil
    ) {
        self.load = load
        self.installed = installed
    }
}

// Why deferring is safe (issue 38, the launch cost): every check still runs, only later. A set governs nothing
// until it is installed, and every path that reads the sets of a host (an evaluation, for the host and each parent
// domain; `pinSet(for:)`, `document(for:)`, `acceptedVersion(for:)`, a fetched document's rollback floor,
// `installCompiled`; `pinnedHosts` and `hostsMissingSets` for all) first installs that host's deferred documents,
// in the order they were registered (persisted, then bundled), exactly as the initializer did before. A tampered
// file is refused then, as it was at launch. The installations announce no swap: they stand for the launch state,
// which no observer saw before either, and no tracked connection can depend on them (a connection is tracked after
// an evaluation that installed its host's and its parents' documents).
extension PinTrustManager {
    /// Registers `document` for `host`: read and installed like ``installTrusted(document:for:)`` (every check but
    /// freshness, rollback against the set then in force) the first time `host` is needed.
    func deferTrusted(_ document: DeferredDocument, for host: String) {
        let host = Self.normalized(host)
        state.withLock { $0.deferred[host, default: []].append(document) }
    }

    /// Installs the deferred documents of `hosts`, each host's in registration order. A thread that needs a host
    /// being installed by another waits for it.
    func resolveDeferred(hosts: [String]) {
        let any = state.withLock { state in
            !state.deferred.isEmpty && hosts.contains { state.deferred[$0] != nil }
        }
        guard any else { return }
        resolving.withLock { _ in
            for host in hosts {
                // Left registered while installing, so that other threads see it pending and wait above.
                guard let documents = state.withLock({ $0.deferred[host] }) else { continue }
                for document in documents {
                    guard let bytes = document.load() else { continue }
                    let checked = verifier.verifyIgnoringTime(
                        bytes, host: host, lastAccepted: signedVersionInForce(for: host))
                    if case .success(let verified) = install(checked, host: host, announcing: false) {
                        document.installed?(bytes, verified)
                    }
                }
                state.withLock { _ = $0.deferred.removeValue(forKey: host) }
            }
        }
    }

    /// Installs every deferred document, one host at a time (a thread waiting for one host waits for that one only).
    func resolveAllDeferred() {
        for host in state.withLock({ $0.deferred.keys.sorted() }) { resolveDeferred(hosts: [host]) }
    }

    /// Whether `host` or one of its parent domains (whose set may cover it) has deferred documents.
    static func hasDeferred(_ deferred: [String: [DeferredDocument]], covering host: String) -> Bool {
        if deferred[host] != nil { return true }
        var rest = host[...]
        while let dot = rest.utf8.firstIndex(of: 0x2E) {
            rest = rest[rest.utf8.index(after: dot)...]
            if deferred[String(rest)] != nil { return true }
        }
        return false
    }

    /// `host` and each of its parent domains, nearest first: the hosts whose sets an evaluation may use.
    static func lookupChain(_ host: String) -> [String] {
        var chain = [host]
        var rest = host[...]
        while let dot = rest.utf8.firstIndex(of: 0x2E) {
            rest = rest[rest.utf8.index(after: dot)...]
            chain.append(String(rest))
        }
        return chain
    }
}
