import PinSetCore

/// The outcome of evaluating a TLS chain against the pins of a host (PROTOCOL §5).
public enum TrustDecision: Sendable, Hashable {
    /// A certificate of the chain matched `pin` of the set for `notedHost`.
    case trusted(pin: Pin, notedHost: String)
    /// No set covers `host` (or its set is empty, or stale with ``PinningOptions/StaleSetPolicy/stopPinning``).
    /// `allowed` is `false` when the manager denies unpinned hosts.
    case hostNotPinned(host: String, allowed: Bool)
    /// The app is configured to pin `host` (``PinTrustManager/expectSets(for:)``) but holds no set for it yet.
    /// `allowed` follows ``PinningOptions/missingSets`` (default: refused).
    case setMissing(host: String, allowed: Bool)
    /// No pin matched and the set enforces: block the connection and report.
    case pinMismatch(PinFailure)
    /// No pin matched but the set is report-only: let the connection through and report.
    case reportOnlyMismatch(PinFailure)

    /// Whether the connection may proceed.
    public var allowsConnection: Bool {
        switch self {
        case .trusted, .reportOnlyMismatch: true
        case .hostNotPinned(_, let allowed), .setMissing(_, let allowed): allowed
        case .pinMismatch: false
        }
    }

    /// The failure to report, if no pin matched.
    public var failure: PinFailure? {
        switch self {
        case .pinMismatch(let failure), .reportOnlyMismatch(let failure): failure
        case .trusted, .hostNotPinned, .setMissing: nil
        }
    }
}
