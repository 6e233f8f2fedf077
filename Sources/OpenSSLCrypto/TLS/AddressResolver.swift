import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves a host name (or a numeric address) to TCP addresses with `getaddrinfo`.
public enum AddressResolver {
    /// Like ``resolve(_:port:limit:)``, but gives up after `deadline` seconds: `getaddrinfo` has no timeout of
    /// its own (glibc waits 5 s per server and attempt), so it runs on a thread of its own and an answer that
    /// comes later is dropped. The abandoned lookup ends when the resolver gives up; it holds no lock.
    /// Special-use names (RFC 6761: `.invalid`, `localhost`) and numeric addresses are answered at once, without
    /// a lookup (``withoutLookup(_:port:)``).
    ///
    /// - Throws: ``TLSProbeErrorCode/dnsFailure`` when the name does not resolve in time.
    public static func resolve(_ host: String, port: Int, limit: Int = 8, deadline: Double) throws(TLSProbeError)
        -> [ProbeAddress]
    {
        if let answer = try withoutLookup(host, port: port) { return answer }
        return try resolve(host, port: port, limit: limit, deadline: deadline, using: resolve)
    }

    /// The deadline around any blocking `lookup` (tests give one that hangs, which no resolver here does).
    static func resolve(
        _ host: String, port: Int, limit: Int, deadline: Double,
        using blocking: @escaping @Sendable (String, Int, Int) throws(TLSProbeError) -> [ProbeAddress]
    ) throws(TLSProbeError) -> [ProbeAddress] {
        let lookup = Lookup()
        let thread = Thread {
            lookup.result = Result { () throws(TLSProbeError) in try blocking(host, port, limit) }
            lookup.done.signal()
        }
        thread.name = "pinset.resolve"
        thread.start()
        guard lookup.done.wait(timeout: .now() + max(0, deadline)) == .success, let result = lookup.result else {
            let shown = deadline < 10 ? String(format: "%.1f", deadline) : String(Int(deadline))
            throw TLSProbeError(.dnsFailure, "cannot resolve \(host): no answer within \(shown) s")
        }
        return try result.get()
    }

    /// One lookup's answer, handed from its thread to the waiter. `result` is written once, before `done` is
    /// signalled, and read only after a successful wait on `done`: the semaphore orders the two.
    private final class Lookup: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var result: Result<[ProbeAddress], TLSProbeError>?
    }

    /// The distinct addresses of `host` for TCP `port`, in resolver order, at most `limit` (default 8).
    ///
    /// Special-use names and numeric addresses are answered without a lookup, as by the deadline variant.
    ///
    /// - Throws: ``TLSProbeErrorCode/dnsFailure`` when the name does not resolve.
    public static func resolve(_ host: String, port: Int, limit: Int = 8) throws(TLSProbeError) -> [ProbeAddress] {
        precondition((1...65_535).contains(port), "a TCP port is 1...65535")
        if let answer = try withoutLookup(host, port: port) { return answer }
        var hints = streamHints(flags: AI_NUMERICSERV)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw TLSProbeError(.dnsFailure, "cannot resolve \(host): \(reason)")
        }
        defer { freeaddrinfo(first) }
        var result = [ProbeAddress]()
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor, result.count < limit {
            cursor = entry.pointee.ai_next
            guard let address = describe(entry.pointee.ai_addr, port: port), !result.contains(address) else { continue }
            result.append(address)
        }
        guard !result.isEmpty else { throw TLSProbeError(.dnsFailure, "\(host) resolved to no IPv4 or IPv6 address") }
        return result
    }

    /// `getaddrinfo` hints for TCP addresses of either family, with `flags`.
    static func streamHints(flags: Int32) -> addrinfo {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = flags
        return hints
    }

    /// The numeric address in a `sockaddr`, or `nil` for a family other than IPv4 and IPv6.
    static func describe(_ address: UnsafeMutablePointer<sockaddr>?, port: Int) -> ProbeAddress? {
        guard let address else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let bytes: [UInt8]
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var raw = v4.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                return withUnsafeBytes(of: &raw) { Array($0) }
            }
        case AF_INET6:
            bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var raw = v6.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                return withUnsafeBytes(of: &raw) { Array($0) }
            }
        default:
            return nil
        }
        let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ProbeAddress(ip: ip, port: port, bytes: bytes)
    }
}
