import Crypto
import Foundation
import PinSetCore

extension PinTrustManager {
    private enum Pass {
        case decided(TrustDecision)
        case mismatch(CompiledPolicy, notedHost: String)
        case needHashes(CompiledPolicy, notedHost: String)
        /// Documents deferred at launch must be installed first (``PinTrustManager/resolveDeferred(hosts:)``).
        case deferred
    }

    /// Evaluates a presented (and already standard-validated) chain for `host` at `now` (PROTOCOL §5).
    ///
    /// The policy is the set for `host`, else the nearest parent's set with `includeSubdomains`. The chain passes
    /// if any of its certificates (leaf, intermediate or root) matches an unexpired pin: SPKI pins against the
    /// certificate's SubjectPublicKeyInfo, certificate pins against its whole DER. Digests are cached per
    /// certificate, so a repeated handshake hashes nothing.
    ///
    /// - Important: This checks pins only. Run standard chain and hostname validation first (the adapters do),
    ///   and pass the *validated* chain: pins matched against an unvalidated chain prove nothing.
    /// - Parameters:
    ///   - chain: DER certificates, leaf first.
    ///   - host: the name the app connected to.
    ///   - now: the clock, for pin and document expiry.
    public func evaluate(chain: [[UInt8]], host: String, now: Date) -> TrustDecision {
        evaluate(chain: chain, host: host, now: now, notify: true)
    }

    /// ``evaluate(chain:host:now:)``; with `notify` false a failure calls neither `onPinFailure` nor the
    /// observers (the updater re-evaluating a chain to classify a failure already reported).
    func evaluate(chain: [[UInt8]], host: String, now: Date, notify: Bool) -> TrustDecision {
        let host = Self.normalized(host)
        #if DEBUG
            if let decision = debugOverride(chain: chain, host: host) { return decision }
        #endif
        let time = now.timeIntervalSinceReferenceDate
        let first = state.withLock { state -> Pass in
            // Documents deferred at launch for `host` or a parent are installed before deciding.
            if !state.deferred.isEmpty, Self.hasDeferred(state.deferred, covering: host) { return .deferred }
            return Self.firstPass(&state, chain: chain, host: host, now: time, options: options)
        }
        switch first {
        case .deferred:
            // Once: installing removes the host's (and its parents') deferred documents.
            resolveDeferred(hosts: Self.lookupChain(host))
            return evaluate(chain: chain, host: host, now: now, notify: notify)
        case .decided(let decision):
            if case .setMissing(let missing, false) = decision, notify { announceMissing(missing) }
            return decision
        case .mismatch(let policy, let noted):
            return failed(policy, notedHost: noted, host: host, chain: chain, now: now, notify: notify)
        case .needHashes(let policy, let noted):
            let entries = chain.map(Self.hashEntry)
            state.withLock { state in
                for entry in entries { state.cache.insert(entry) }
            }
            for entry in entries {
                if let index = policy.match(entry.digests, now: time) {
                    return .trusted(pin: policy.set.pins[index], notedHost: noted)
                }
            }
            return failed(policy, notedHost: noted, host: host, chain: chain, now: now, notify: notify)
        }
    }

    private static func firstPass(
        _ state: inout State, chain: [[UInt8]], host: String, now: Double, options: PinningOptions
    ) -> Pass {
        guard let (noted, policy) = lookup(state.policies, host: host) else {
            if state.expected.contains(host) {
                return .decided(.setMissing(host: host, allowed: options.missingSets == .allow))
            }
            return .decided(.hostNotPinned(host: host, allowed: options.unpinnedHosts == .allow))
        }
        if policy.pins.isEmpty {
            return .decided(.hostNotPinned(host: host, allowed: options.unpinnedHosts == .allow))
        }
        if now >= policy.staleAfter, options.staleSetPolicy == .stopPinning {
            // Stale and no longer pinned: treated as any unpinned host, so `unpinnedHosts: .deny` still refuses.
            return .decided(.hostNotPinned(host: host, allowed: options.unpinnedHosts == .allow))
        }
        for der in chain {
            guard let entry = state.cache.lookup(der) else { return .needHashes(policy, notedHost: noted) }
            if let index = policy.match(entry, now: now) {
                return .decided(.trusted(pin: policy.set.pins[index], notedHost: noted))
            }
        }
        return .mismatch(policy, notedHost: noted)
    }

    /// The set for `host`, else the nearest parent's with `includeSubdomains`.
    @inline(__always)
    private static func lookup(_ policies: [String: CompiledPolicy], host: String) -> (String, CompiledPolicy)? {
        if let policy = policies[host] { return (host, policy) }
        var rest = host[...]
        while let dot = rest.utf8.firstIndex(of: 0x2E) {
            rest = rest[rest.utf8.index(after: dot)...]
            let parent = String(rest)
            if let policy = policies[parent] {
                // The nearest parent decides; if it does not cover subdomains, keep looking further up.
                if policy.set.includeSubdomains { return (parent, policy) }
            }
        }
        return nil
    }

    private static func hashEntry(_ der: [UInt8]) -> CertificateHashCache.Entry {
        CertificateHashCache.Entry(
            der: der,
            digests: .init(
                spki: try? SPKIPin.spkiDigest(ofCertificateDER: der), certificate: Digest32(SHA256.hash(data: der))))
    }

    private func failed(
        _ policy: CompiledPolicy, notedHost: String, host: String, chain: [[UInt8]], now: Date, notify: Bool
    ) -> TrustDecision {
        let failure = PinFailure(
            host: host, notedHost: notedHost, includeSubdomains: policy.set.includeSubdomains,
            enforce: policy.set.enforce, chainDER: chain,
            chainPins: chain.map { try? SPKIPin.sha256(ofCertificateDER: $0) },
            expectedPins: policy.activePins(now: now.timeIntervalSinceReferenceDate), version: policy.set.version,
            reportUri: policy.set.reportUri, date: now)
        if notify {
            onPinFailure?(failure)
            for observer in state.withLock({ $0.observers }) { observer(failure) }
        }
        return policy.set.enforce ? .pinMismatch(failure) : .reportOnlyMismatch(failure)
    }
}
