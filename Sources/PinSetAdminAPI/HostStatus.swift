import Foundation
import PinSetCore

/// The monitor's last result for a host: `GET /admin/hosts/{host}/status`.
public struct HostStatus: Codable, Sendable, Hashable {
    /// A warning the monitor raises about a host.
    public enum Warning: String, Codable, Sendable, Hashable, CaseIterable {
        /// An address serves a chain that no pin of the set matches: a lock-out in progress.
        case servedKeyNotPinned = "served-key-not-pinned"
        /// A served leaf certificate's `notAfter` is within the expiry warning (default 21 days).
        case certificateExpiresSoon = "certificate-expires-soon"
        /// Every pin that matches what an address serves expires within the expiry warning.
        case onlyMatchingPinExpiresSoon = "only-matching-pin-expires-soon"
        /// An address (or the name) could not be probed.
        case unreachable
    }

    /// The host.
    public var host: String
    /// The verdict.
    public var state: MonitorState
    /// When the host was last probed; `nil` when never.
    public var checkedAt: Date?
    /// Whether every reachable address serves a chain the set matches (and at least one was reachable).
    public var pinsMatch: Bool?
    /// The earliest `notAfter` among the leaves served.
    public var leafNotAfter: Date?
    /// The warnings of the last probe, in a fixed order.
    public var warnings: [Warning]
    /// Each address probed: the pins it serves, whether the set matches it, or the error.
    public var addresses: [AddressProbe]

    /// Creates a status.
    public init(
        host: String, state: MonitorState, checkedAt: Date? = nil, pinsMatch: Bool? = nil, leafNotAfter: Date? = nil,
        warnings: [Warning] = [], addresses: [AddressProbe] = []
    ) {
        self.host = host
        self.state = state
        self.checkedAt = checkedAt
        self.pinsMatch = pinsMatch
        self.leafNotAfter = leafNotAfter
        self.warnings = warnings
        self.addresses = addresses
    }

    private enum CodingKeys: String, CodingKey {
        case host, state, checkedAt, pinsMatch, leafNotAfter, warnings, addresses
    }

    /// Decodes a status; `warnings` and `addresses` may be left out (empty). Encoding is the synthesized one.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        host = try c.decode(String.self, forKey: .host)
        state = try c.decode(MonitorState.self, forKey: .state)
        checkedAt = try c.decodeIfPresent(Date.self, forKey: .checkedAt)
        pinsMatch = try c.decodeIfPresent(Bool.self, forKey: .pinsMatch)
        leafNotAfter = try c.decodeIfPresent(Date.self, forKey: .leafNotAfter)
        warnings = try c.decodeIfPresent([Warning].self, forKey: .warnings) ?? []
        addresses = try c.decodeIfPresent([AddressProbe].self, forKey: .addresses) ?? []
    }
}
