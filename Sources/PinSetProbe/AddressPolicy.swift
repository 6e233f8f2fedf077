/// Which addresses a probe may reach when no mapping names them: never loopback, private, link-local or
/// otherwise internal ranges, so that the server cannot be used to scan its own network (SSRF).
public enum AddressPolicy {
    /// Why `bytes` (4 or 16 bytes, network order) may not be probed, or `nil` when it is a public address.
    public static func restriction(_ bytes: [UInt8]) -> String? {
        if bytes.count == 16 {
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                return restriction(Array(bytes[12...]))  // IPv4-mapped
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? "loopback" : "unspecified" }
            if bytes[0] & 0xfe == 0xfc { return "private (unique local)" }
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return "link-local" }
            if bytes[0] == 0xff { return "multicast" }
            return nil
        }
        guard bytes.count == 4 else { return "not an IP address" }
        switch (bytes[0], bytes[1]) {
        case (127, _): return "loopback"
        case (10, _), (192, 168): return "private"
        case (172, let second) where (16...31).contains(second): return "private"
        case (169, 254): return "link-local"
        case (100, let second) where (64...127).contains(second): return "shared (carrier-grade NAT)"
        case (0, _): return "unspecified"
        case (let first, _) where first >= 224: return "multicast or reserved"
        default: return nil
        }
    }
}
