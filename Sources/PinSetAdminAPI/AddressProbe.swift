import Foundation
import PinSetCore

/// What one address of a host served when probed, or why it could not be probed.
public struct AddressProbe: Codable, Sendable, Hashable {
    /// `ip:port` (`[v6]:port`), or the host name when it did not resolve.
    public var address: String
    /// The chain served, leaf first, with its pins; empty when ``error`` is set.
    public var served: [ServedCertificate]
    /// The leaf's `notAfter`, when a chain was served.
    public var leafNotAfter: Date?
    /// Why there is no chain (DNS failure, refused address, timeout, TLS error).
    public var error: String?
    /// Whether a pin of the set matches the chain: set by the pre-flight check and the monitor.
    public var matches: Bool?

    /// Creates a probe result.
    public init(
        address: String, served: [ServedCertificate] = [], leafNotAfter: Date? = nil, error: String? = nil,
        matches: Bool? = nil
    ) {
        self.address = address
        self.served = served
        self.leafNotAfter = leafNotAfter
        self.error = error
        self.matches = matches
    }

    private enum CodingKeys: String, CodingKey { case address, served, leafNotAfter, error, matches }

    /// Decodes a result; `served` may be left out (empty). Encoding is the synthesized one.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        address = try c.decode(String.self, forKey: .address)
        served = try c.decodeIfPresent([ServedCertificate].self, forKey: .served) ?? []
        leafNotAfter = try c.decodeIfPresent(Date.self, forKey: .leafNotAfter)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        matches = try c.decodeIfPresent(Bool.self, forKey: .matches)
    }
}
