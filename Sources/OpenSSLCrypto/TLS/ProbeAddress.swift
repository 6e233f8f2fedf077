/// One numeric IP address and TCP port to probe, as resolved by ``AddressResolver``.
public struct ProbeAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in numeric text form (`127.0.0.1`, `::1`).
    public let ip: String
    /// The TCP port.
    public let port: Int
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6 (for range checks above the wrapper).
    public let bytes: [UInt8]

    /// Creates an address; `bytes` must be 4 or 16 bytes long.
    public init(ip: String, port: Int, bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16, "an IP address is 4 or 16 bytes")
        self.ip = ip
        self.port = port
        self.bytes = bytes
    }

    /// `ip:port`, with brackets around an IPv6 address (`[::1]:443`).
    public var description: String { bytes.count == 16 ? "[\(ip)]:\(port)" : "\(ip):\(port)" }
}
