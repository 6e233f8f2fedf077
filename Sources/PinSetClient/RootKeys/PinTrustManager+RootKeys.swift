import Foundation
import PinSetCore

extension PinTrustManager {
    /// Creates a manager for an app that ships offline root keys (PROTOCOL §6) instead of, or beside, its
    /// signing keys.
    ///
    /// ```swift
    /// let trust = try TrustStore(rootKeys: [TrustedKey(spkiPEM: rootPublicKeyPEM)], threshold: 1)
    /// let manager = PinTrustManager(trustStore: trust)
    /// ```
    /// - Parameters:
    ///   - trustStore: the trust state (root keys as version 0, or a bundled trust document).
    ///   - trustedKeys: signing keys shipped directly, if any; they keep working as without root keys.
    ///   - options: see ``PinningOptions``.
    ///   - onPinFailure: see ``init(verifier:options:onPinFailure:)``.
    public convenience init(
        trustStore: TrustStore, trustedKeys: [TrustedKey] = [], options: PinningOptions = PinningOptions(),
        onPinFailure: (@Sendable (PinFailure) -> Void)? = nil
    ) {
        self.init(
            verifier: DocumentVerifier(trustedKeys: trustedKeys, trustStore: trustStore, skew: options.skew),
            options: options, onPinFailure: onPinFailure)
    }

    /// The trust state of a manager configured with root keys; `nil` otherwise.
    public var trustStore: TrustStore? { verifier.trustStore }

    /// The hosts whose set in force was signed by a key that is neither shipped directly nor a signing key of
    /// the trust state in force: after a trust update dropped that key, these are re-fetched at once.
    public func hostsSignedByUndelegatedKeys() -> [String] {
        guard let trust = verifier.trustStore?.current else { return [] }
        return pinnedHosts.filter { host in
            guard let kid = document(for: host)?.kid else { return false }
            return verifier.trustedKeys[kid] == nil && trust.signingKeys[kid] == nil
        }
    }
}
