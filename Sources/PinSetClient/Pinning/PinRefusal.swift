/// Why pinning refused a connection: what a request site can learn after the platform reported only a
/// cancellation (`URLError.cancelled` on Apple platforms). ``PinningClient`` keeps one per refused task
/// (`failure(for:)`), and its `PinnedSession` throws it instead of the bare cancellation.
public struct PinRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host connected to.
    public let host: String
    /// The pin decision, or `nil` when standard validation refused the chain first.
    public let decision: TrustDecision?
    /// Why, as a sentence (no secret: pins and host names only).
    public let detail: String

    /// Creates a refusal.
    public init(host: String, decision: TrustDecision?, detail: String) {
        self.host = host
        self.decision = decision
        self.detail = detail
    }

    /// The pin failure when a set refused the chain (``TrustDecision/pinMismatch(_:)``).
    public var failure: PinFailure? { decision?.failure }

    /// `"<host> refused: <detail>"`.
    public var description: String { "\(host) refused: \(detail)" }
}
