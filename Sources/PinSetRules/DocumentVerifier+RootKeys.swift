import Foundation
import PinSetCore

extension DocumentVerifier {
    /// Creates a verifier for an app that ships root keys (PROTOCOL §6): a pin document is accepted when its
    /// `kid` is a signing key of the trust state in force in `trustStore`, or one of `trustedKeys`.
    ///
    /// - Parameters:
    ///   - trustedKeys: signing keys shipped directly, if any (default none). They keep working exactly as
    ///     without root keys, and freeze protection does not apply to them.
    ///   - trustStore: the trust state, advanced by ``PinSetUpdater``.
    ///   - skew: clock tolerance, default 300 seconds.
    ///   - maxBytes: body size limit, default 65,535 bytes.
    public init(
        trustedKeys: [TrustedKey] = [], trustStore: TrustStore, skew: TimeInterval = 300,
        maxBytes: Int = SignedDocument.maxBytes
    ) {
        self.init(trustedKeys: trustedKeys, skew: skew, maxBytes: maxBytes)
        self.trustStore = trustStore
    }
}

extension TrustState {
    /// Freeze protection (PROTOCOL §6.2): the refusal of a new pin document signed by a delegated key while the
    /// trust document in force has expired; `nil` while it is fresh.
    package func freezeRejection(_ now: Date, _ skew: TimeInterval) -> DocumentRejection? {
        guard isExpired(at: now, skew: skew), let expiresAt else { return nil }
        return DocumentRejection(
            .trustExpired,
            "trust version \(version) expired at \(RFC3339.format(expiresAt)); no new document signed by a delegated key is accepted until a newer trust document is fetched"
        )
    }
}
