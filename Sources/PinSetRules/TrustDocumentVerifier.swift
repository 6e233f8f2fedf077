import Foundation
import PinSetCore

/// Checks trust documents exactly as PROTOCOL §6.2 lists it, steps 1–5 in order, and says precisely why one is
/// refused. Pure: no I/O, no state (``TrustStore`` holds the state, ``PinSetUpdater`` fetches).
public struct TrustDocumentVerifier: Sendable {
    /// The clock tolerance of step 5, in seconds. Default 300.
    public var skew: TimeInterval
    /// The largest document accepted (step 1). Default 65,535 bytes.
    public var maxBytes: Int
    /// The most versions one update walks (step 4). Default 1,000.
    public var maxSteps: Int

    /// Creates a verifier; every parameter has the default documented on its property.
    public init(
        skew: TimeInterval = 300, maxBytes: Int = TrustDocument.maxBytes, maxSteps: Int = TrustDocument.maxWalkSteps
    ) {
        self.skew = skew
        self.maxBytes = maxBytes
        self.maxSteps = maxSteps
    }

    /// Steps 1–4: `bytes` as the version following `state`. Time is not checked here (an intermediate version
    /// may have expired): check the newest version reached with ``checkTime(_:now:)``.
    public func verifyNext(_ bytes: some Collection<UInt8>, after state: TrustState) -> Result<
        TrustState, TrustRejection
    > {
        TrustRules.verifyNext(bytes, after: state.anchor, crypto: state.crypto, maxBytes: maxBytes)
            .map { TrustState(verified: $0, crypto: state.crypto) }
    }

    /// Step 5 on the newest version reached: `issuedAt - skew ≤ now < expiresAt + skew`. `nil` when it passes
    /// (always for version 0).
    public func checkTime(_ state: TrustState, now: Date) -> TrustRejection? {
        guard let issuedAt = state.issuedAt, let expiresAt = state.expiresAt else { return nil }
        if now < issuedAt.addingTimeInterval(-skew) {
            return TrustRejection(
                .notYetValid,
                "trust version \(state.version) is issued at \(RFC3339.format(issuedAt)), in the future (now \(RFC3339.format(now)))"
            )
        }
        if now >= expiresAt.addingTimeInterval(skew) {
            return TrustRejection(
                .expired,
                "trust version \(state.version) expired at \(RFC3339.format(expiresAt)) (now \(RFC3339.format(now)))")
        }
        return nil
    }

    /// Walks `documents` (versions N+1, N+2, … in order) from `state`: steps 1–4 on each, step 5 on the last.
    /// - Returns: the newest state reached, or the first rule broken (then nothing changes).
    public func walk(_ documents: [[UInt8]], from state: TrustState, now: Date) -> Result<TrustState, TrustRejection> {
        guard documents.count <= maxSteps else {
            return .failure(
                TrustRejection(.tooManySteps, "\(documents.count) versions to walk; at most \(maxSteps) per update"))
        }
        var reached = state
        for bytes in documents {
            switch verifyNext(bytes, after: reached) {
            case .success(let next): reached = next
            case .failure(let rejection): return .failure(rejection)
            }
        }
        if reached.version != state.version, let rejection = checkTime(reached, now: now) { return .failure(rejection) }
        return .success(reached)
    }
}
