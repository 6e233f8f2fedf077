/// The result of the pre-flight check of a write, in the write's answer (`preflight`) or in its `422`.
public struct PreflightReport: Codable, Sendable, Hashable {
    /// The outcome.
    public enum Status: String, Codable, Sendable, Hashable {
        /// Every address served a chain that a pin of the new set matches.
        case match
        /// At least one address served a chain that no pin of the new set matches.
        case mismatch
        /// No address could be probed, or some could not and the rest matched.
        case unreachable
    }

    /// The outcome.
    public var status: Status
    /// What happened, for the administrator.
    public var detail: String
    /// Each address probed, with the pins it serves and whether the new set matches it.
    public var addresses: [AddressProbe]
    /// `true` when the write went through only because it said `"force": true`.
    public var forced: Bool

    /// Creates a report.
    public init(status: Status, detail: String, addresses: [AddressProbe], forced: Bool = false) {
        self.status = status
        self.detail = detail
        self.addresses = addresses
        self.forced = forced
    }
}
