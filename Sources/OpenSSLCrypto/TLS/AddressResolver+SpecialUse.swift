import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension AddressResolver {
    /// The answer for names that never need the resolver, or `nil` to ask it:
    /// - `invalid` and every name under it fail at once. RFC 6761 §6.4: "Name resolution APIs and libraries
    ///   SHOULD recognize 'invalid' names as special and SHOULD always return immediate negative responses."
    /// - `localhost` and every name under it are `127.0.0.1`, never sent to DNS. RFC 6761 §6.3: "Name resolution
    ///   APIs and libraries SHOULD recognize localhost names as special and SHOULD always return the IP loopback
    ///   address for address queries". IPv4's only: a probe must reach every address it is given, and `::1` is
    ///   not configured everywhere (nor in this machine's `/etc/hosts`). Callers still apply their address
    ///   policy to loopback.
    /// - A numeric address is its own answer (`getaddrinfo` with `AI_NUMERICHOST` never blocks).
    ///
    /// - Throws: ``TLSProbeErrorCode/dnsFailure`` for an `invalid` name.
    static func withoutLookup(_ host: String, port: Int) throws(TLSProbeError) -> [ProbeAddress]? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "invalid" || name.hasSuffix(".invalid") {
            throw TLSProbeError(.dnsFailure, "cannot resolve \(host): an .invalid name never resolves (RFC 6761)")
        }
        if name == "localhost" || name.hasSuffix(".localhost") {
            return [ProbeAddress(ip: "127.0.0.1", port: port, bytes: [127, 0, 0, 1])]
        }
        return numeric(host, port: port)
    }

    /// `host` as a numeric IPv4 or IPv6 address, or `nil` when it is a name.
    private static func numeric(_ host: String, port: Int) -> [ProbeAddress]? {
        guard (1...65_535).contains(port), host.contains(where: { $0 == ":" || $0.isNumber }) else { return nil }
        var hints = streamHints(flags: AI_NUMERICHOST | AI_NUMERICSERV)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        return describe(first.pointee.ai_addr, port: port).map { [$0] }
    }
}
