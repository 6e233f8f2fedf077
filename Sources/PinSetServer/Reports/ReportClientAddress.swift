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
                guard let hop = Self.bytes(Self.trimmed(entry)) else { break }
                address = hop
                if !trusted.contains(hop) { break }
            }
        }
        return Self.key(address)
    }

    /// `entry` without the spaces and tabs around it, on bytes: Foundation's `trimmingCharacters` was 12% of the
    /// request thread's CPU under a flood of reports (issue 40's B5r).
    private static func trimmed(_ entry: Substring) -> String {
        let bytes = entry.utf8
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return "" }
        return String(entry[first...last])
    }

    /// `a.b.c.d` for IPv4 (and IPv4-mapped IPv6), else the /64's first 8 bytes in hex with `::/64`.
    static func key(_ address: [UInt8]) -> String {
        if address.count == 4 { return "\(address[0]).\(address[1]).\(address[2]).\(address[3])" }
        let digits = Array("0123456789abcdef".utf8)
        let hex = address.prefix(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
        return String(decoding: hex, as: UTF8.self) + "::/64"
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
