import Foundation
import Locking
import PinSetCore

/// Holds the pin set in force for each host and evaluates TLS chains against them (PROTOCOL §5).
///
/// Thread-safe. Sets are swapped atomically: an evaluation sees the old set or the new one, never a mix.
/// Evaluation is pure logic over DER bytes and a clock; the TLS adapters (`PinSetNIO`, the Apple helpers)
/// call ``evaluate(chain:host:now:)`` after standard chain and hostname validation.
public final class PinTrustManager: Sendable {
    struct State {
        var policies: [String: CompiledPolicy] = [:]
        var cache: CertificateHashCache
        /// Hosts the app is configured to pin (``expectSets(for:)``): without a set, they are ``TrustDecision/setMissing(host:allowed:)``.
        var expected: Set<String> = []
        /// Called after `onPinFailure` for every failure (``observePinFailures(_:)``).
        var observers: [@Sendable (PinFailure) -> Void] = []
        /// Called after every swap (``observeSetSwaps(_:)``).
        var swapObservers: [@Sendable (SetSwap) -> Void] = []
        /// Called when a refusal found no set (``observeMissingSets(_:)``).
        var missingObservers: [@Sendable (String) -> Void] = []
        /// Live connections to re-check after a swap that tightens (``trackConnection(host:chain:close:)``).
        var connections: [UInt64: TrackedConnection] = [:]
        var nextConnection: UInt64 = 0
        /// Documents registered at launch whose reading and checks wait until their host is first needed
        /// (``deferTrusted(_:for:)``), by host, in registration order.
        var deferred: [String: [DeferredDocument]] = [:]
        #if DEBUG
            /// Extra roots trusted in DEBUG builds only (``PinTrustManager/debugTrustExtraRoot(der:)``).
            var debugRoots: [[UInt8]] = []
        #endif
    }

    /// The verifier documents pass through.
    public let verifier: DocumentVerifier
    /// How unpinned hosts and stale sets are treated.
    public let options: PinningOptions
    let state: Locked<State>
    /// The transparency logs' largest checkpoints, when ``PinningOptions/logPolicy`` is set.
    let log: LogCheckpoints?
    let onPinFailure: (@Sendable (PinFailure) -> Void)?
    /// Held while deferred documents are installed (``resolveDeferred(hosts:)``), so that a thread needing the same
    /// host waits for them instead of seeing no set.
    let resolving = Locked(())

    /// Creates a manager with no sets.
    /// - Parameters:
    ///   - verifier: checks every document before it is installed.
    ///   - options: see ``PinningOptions`` (defaults: allow unpinned hosts, keep enforcing stale sets).
    ///   - onPinFailure: called (outside any lock, on the evaluating thread) for every chain that matched no pin,
    ///     enforcing or report-only, at once and unclassified. Keep it quick: it runs during the handshake. A
    ///     running ``PinSetUpdater`` then classifies each enforcing failure (``PinFailureClassification``) and
    ///     hands it to its own `onPinFailure` and ``PinSetUpdater/events``.
    public init(
        verifier: DocumentVerifier, options: PinningOptions = PinningOptions(),
        onPinFailure: (@Sendable (PinFailure) -> Void)? = nil
    ) {
        self.verifier = verifier
        self.options = options
        self.onPinFailure = onPinFailure
        log = options.logPolicy.map(LogCheckpoints.init(policy:))
        state = Locked(State(cache: CertificateHashCache(capacity: options.cacheCapacity)))
    }

    /// Verifies a freshly fetched document for `host` (PROTOCOL §5 steps 1–6, rollback checked against the set
    /// in force) and, if it passes, swaps its set in atomically. A refused document changes nothing.
    public func accept(_ bytes: some Collection<UInt8>, for host: String, now: Date) -> Result<
        VerifiedDocument, DocumentRejection
    > {
        let host = Self.normalized(host)
        let last = signedVersion(for: host)
        return install(verifier.verify(bytes, host: host, now: now, lastAccepted: last), host: host)
    }

    /// Installs a document the app already trusted once (persisted) or ships (bundled): every check of
    /// ``accept(_:for:now:)`` except freshness. An expired one becomes a stale set (``PinningOptions/staleSetPolicy``).
    /// A document older than the set in force is refused as ``DocumentRejectionCode/rollback``.
    public func installTrusted(document bytes: some Collection<UInt8>, for host: String) -> Result<
        VerifiedDocument, DocumentRejection
    > {
        let host = Self.normalized(host)
        let last = signedVersion(for: host)
        return install(verifier.verifyIgnoringTime(bytes, host: host, lastAccepted: last), host: host)
    }

    /// Installs a set compiled into the app (no signature: the app binary vouches for it). It is a fallback,
    /// like a bundled document: it is installed only when no signed set is in force for its host and no compiled
    /// set of the same or a newer version is, and it never raises the rollback floor of signed documents (a
    /// fetched or persisted document replaces it whatever its version). Returns whether it was installed.
    @discardableResult
    public func installCompiled(pinSet: PinSet) -> Bool {
        let host = Self.normalized(pinSet.host)
        resolveDeferred(hosts: [host])
        let policy = CompiledPolicy(set: pinSet, document: nil, skew: options.skew)
        let swap: SetSwap? = state.withLock { state in
            if let current = state.policies[host],
                current.document != nil || current.acceptedVersion >= policy.acceptedVersion
            {
                return nil
            }
            let swap = SetSwap(host: host, replaced: state.policies[host], by: policy)
            state.policies[host] = policy
            return swap
        }
        guard let swap else { return false }
        announce(swap)
        return true
    }

    /// The version of the *signed* set in force for `host`: the floor a new document must not roll back. A
    /// compiled set (``installCompiled(pinSet:)``) sets no floor. Deferred documents of `host` are installed first.
    func signedVersion(for host: String) -> AcceptedVersion? {
        resolveDeferred(hosts: [host])
        return signedVersionInForce(for: host)
    }

    /// ``signedVersion(for:)`` without installing deferred documents first (while installing them).
    func signedVersionInForce(for host: String) -> AcceptedVersion? {
        state.withLock { state in
            guard let policy = state.policies[host], policy.document != nil else { return nil }
            return policy.acceptedVersion
        }
    }

    /// The set in force for exactly `host` (no parent lookup), if any.
    public func pinSet(for host: String) -> PinSet? {
        let host = Self.normalized(host)
        resolveDeferred(hosts: [host])
        return state.withLock { $0.policies[host]?.set }
    }

    /// The document the set in force for `host` came from (`nil` for none, or for a set installed from code).
    public func document(for host: String) -> VerifiedDocument? {
        let host = Self.normalized(host)
        resolveDeferred(hosts: [host])
        return state.withLock { $0.policies[host]?.document }
    }

    /// The version marker of the set in force for `host`, which newer documents must not roll back.
    public func acceptedVersion(for host: String) -> AcceptedVersion? {
        let host = Self.normalized(host)
        resolveDeferred(hosts: [host])
        return state.withLock { $0.policies[host]?.acceptedVersion }
    }

    /// Declares that the app pins `hosts`: until a set for one of them is installed, evaluating it gives
    /// ``TrustDecision/setMissing(host:allowed:)`` (refused unless ``PinningOptions/missingSets`` is `.allow`),
    /// not ``TrustDecision/hostNotPinned(host:allowed:)``. ``PinSetUpdater`` declares its configured hosts.
    public func expectSets(for hosts: some Sequence<String>) {
        let hosts = hosts.map(Self.normalized)
        state.withLock { $0.expected.formUnion(hosts) }
    }

    /// Adds `observer`, called for every pin failure after `onPinFailure` (on the evaluating thread, outside the
    /// lock; keep it quick). ``PinSetUpdater/start()`` observes its manager this way to classify failures.
    public func observePinFailures(_ observer: @escaping @Sendable (PinFailure) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Every host that has a set, sorted.
    public var pinnedHosts: [String] {
        resolveAllDeferred()
        return state.withLock { $0.policies.keys.sorted() }
    }

    /// Installs a verified document unless a newer one is in force; `announcing` tells the swap observers and
    /// checks the tracked connections (not for deferred documents: see ``deferTrusted(_:for:)``).
    func install(
        _ result: Result<VerifiedDocument, DocumentRejection>, host: String, announcing: Bool = true
    ) -> Result<VerifiedDocument, DocumentRejection> {
        guard case .success(let document) = result else { return result }
        let policy = CompiledPolicy(set: document.pinSet, document: document, skew: options.skew)
        // Re-check rollback under the lock: another accept may have installed a newer set meanwhile.
        let outcome: Result<SetSwap, DocumentRejection> = state.withLock { state in
            if let current = state.policies[host], current.document != nil,
                policy.acceptedVersion < current.acceptedVersion
            {
                return .failure(
                    DocumentRejection(
                        .rollback,
                        "version \(policy.set.version) is older than version \(current.set.version) installed meanwhile"
                    ))
            }
            let swap = SetSwap(host: host, replaced: state.policies[host], by: policy)
            state.policies[host] = policy
            return .success(swap)
        }
        switch outcome {
        case .success(let swap):
            if announcing { announce(swap) }
            return .success(document)
        case .failure(let rejection):
            return .failure(rejection)
        }
    }

    /// `host` in the protocol's form; a name that is not a DNS name (an IP literal) is only lowercased.
    @inline(__always)
    static func normalized(_ host: String) -> String {
        var plain = true
        for byte in host.utf8 {
            switch byte {
            case 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E: continue
            default: plain = false
            }
            if !plain { break }
        }
        if plain, host.utf8.last != 0x2E { return host }
        return (try? HostName.normalize(host)) ?? host.lowercased()
    }
}
