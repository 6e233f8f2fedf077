#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bind address parsed from an IPv4 or IPv6 literal, in the form `bind(2)` (and MHD_OPTION_SOCK_ADDR) wants.
struct SocketAddress {
    /// `sockaddr_in` or `sockaddr_in6`, in a storage big enough for both.
    var storage = sockaddr_storage()
    /// True for IPv6 (MHD needs MHD_USE_IPv6 then).
    let isIPv6: Bool

    /// Parses `literal` (no brackets, no port); `nil` when it is neither an IPv4 nor an IPv6 literal.
    init?(literal: String, port: UInt16) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            isIPv6 = false
            withUnsafeMutableBytes(of: &storage) { dst in
                withUnsafeBytes(of: &v4) { dst.copyMemory(from: $0) }
            }
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            isIPv6 = true
            withUnsafeMutableBytes(of: &storage) { dst in
                withUnsafeBytes(of: &v6) { dst.copyMemory(from: $0) }
            }
        } else {
            return nil
        }
    }

    /// The numeric text of an IPv4 or IPv6 socket address, or `nil` for other families.
    static func text(of address: UnsafePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok: Bool
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                var addr = a.pointee.sin_addr
                return inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count)) != nil
            }
        case AF_INET6:
            ok = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                var addr = a.pointee.sin6_addr
                return inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count)) != nil
            }
        default:
            return nil
        }
        guard ok else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
