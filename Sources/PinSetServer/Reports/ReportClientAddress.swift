import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The key a report's rate limit counts against: the sender's IPv4 address, or the /64 of its IPv6 address (one
/// subscriber holds a whole /64, so per-address buckets were endless there). Behind a reverse proxy listed in
/// ``ReportConfiguration/trustedProxies`` the sender is the rightmost `X-Forwarded-For` address that is not a
/// trusted proxy; from any other peer that header is ignored (anyone can write it).
struct ReportClientAddress {
    /// The trusted proxies, as their normalised keys' full addresses (16 bytes or 4).
    private let trusted: Set<[UInt8]>

    init(trustedProxies: [String]) {
        trusted = Set(trustedProxies.compactMap(Self.bytes))
    }

    /// The bucket key for a request from `remote` carrying `forwardedFor` (the header's value, if any).
    func key(remote: String?, forwardedFor: String?) -> String {
        guard let remote, var address = Self.bytes(remote) else { return "unknown" }
        if trusted.contains(address), let forwardedFor {
            for entry in forwardedFor.split(separator: ",").reversed() {
                guard let hop = Self.bytes(entry.trimmingCharacters(in: .whitespaces)) else { break }
                address = hop
                if !trusted.contains(hop) { break }
            }
        }
        return Self.key(address)
    }

    /// `a.b.c.d` for IPv4 (and IPv4-mapped IPv6), else the /64's first 8 bytes in hex with `::/64`.
    static func key(_ address: [UInt8]) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return address.prefix(8).map { String(format: "%02x", $0) }.joined() + "::/64"
    }

    /// The 4 bytes of an IPv4 address (also when written IPv4-mapped) or the 16 of an IPv6 one; `nil` otherwise.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12...]) }
        return bytes
    }
}
