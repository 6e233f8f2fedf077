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
            // Ranges that carry an IPv4 address or route to an internal network (issue 40): ::/96
            // (IPv4-compatible), 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64), 2002::/16 (6to4), fec0::/10 (site-local).
            if bytes[0..<12].allSatisfy({ $0 == 0 }) { return "IPv4-compatible" }
            if bytes[0..<4] == [0x00, 0x64, 0xff, 0x9b],
                bytes[4..<12].allSatisfy({ $0 == 0 }) || bytes[4..<6] == [0, 1]
            {
                return "NAT64 (embeds an IPv4 address)"
            }
            if bytes[0] == 0x20, bytes[1] == 0x02 { return "6to4 (embeds an IPv4 address)" }
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0xc0 { return "site-local" }
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
