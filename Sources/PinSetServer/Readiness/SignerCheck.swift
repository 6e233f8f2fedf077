import Locking
import PinSetSigning

/// The `signer` readiness condition: the signing key answers. A key on a PKCS#11 token is asked for a signature
/// (the token may be gone); the answer is kept for ``interval`` seconds, so `/readyz`, which anyone may call, costs
/// the token at most one signature per interval.
///
/// The signature is over a fixed text that is no JWS signing input (it has no `.`), and it is thrown away.
final class SignerCheck: Sendable {
    private struct Last {
        var at: Double = -.infinity
        var failure: String?
    }

    /// Seconds a result is reused. Default 1.
    let interval: Double
    private let signer: any DocumentSigner
    private let last = Locked(Last())
    /// Holds the check while it runs: concurrent `/readyz` calls wait for one signature instead of each making one.
    private let running = Locked(())

    init(signer: any DocumentSigner, interval: Double = 1) {
        self.signer = signer
        self.interval = interval
    }

    /// `nil` when the key signed within the last ``interval`` seconds, else why it cannot sign (no secret).
    func check() -> String? {
        running.withLock { _ in
            let now = Readiness.now()
            if let cached = last.withLock({ now - $0.at < interval ? $0 : nil }) { return cached.failure }
            let failure: String?
            do {
                _ = try signer.sign(Array("pinset readiness check".utf8))
                failure = nil
            } catch {
                failure = "the signing key cannot sign now (\(error)); writes answer 503 until it can"
            }
            last.withLock { $0 = Last(at: now, failure: failure) }
            return failure
        }
    }
}
