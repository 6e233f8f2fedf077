#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parsed HTTP/1.1 response.
struct RawResponse {
    var status: Int
    /// Header names lowercased; the last value wins.
    var headers: [String: String]
    var body: [UInt8]
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

struct RawClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking TCP client that speaks just enough HTTP/1.1 to test the server byte for byte.
final class RawHTTPClient {
    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (IPv4 or IPv6 literal) on `port`; reads time out after `timeout` seconds.
    init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 5) throws {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6 = inet_pton(AF_INET, host, &v4.sin_addr) != 1
        if isV6 {
            guard inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 else { throw RawClientError(description: "bad host") }
        }
        fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError(description: "socket failed") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let rc: Int32
        if isV6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            rc = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            rc = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard rc == 0 else {
            Glibc.close(fd)
            throw RawClientError(description: "connect failed: errno \(errno)")
        }
    }

    deinit { close() }

    /// Closes the socket (idempotent).
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends `text` as UTF-8 bytes.
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawClientError(description: "send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Reads more bytes into the buffer; returns false at end of stream (or on reset).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer += chunk[0..<n]
            return true
        }
        if n == 0 || errno == ECONNRESET { return false }
        throw RawClientError(description: "recv failed: errno \(errno) (timeout?)")
    }

    /// Reads one response; `bodyless` for answers to HEAD (and 304s) that announce a length but carry no body.
    func readResponse(bodyless: Bool = false) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int? = nil
        while headEnd == nil {
            if let i = firstIndex(of: separator) { headEnd = i; break }
            guard try fill() else { throw RawClientError(description: "connection closed before a response") }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError(description: "bad status line")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " ")
            headers[line[..<colon].lowercased()] = value
        }
        var length = Int(headers["content-length"] ?? "0") ?? 0
        if bodyless || status == 304 || status == 204 { length = 0 }
        while buffer.count < length {
            guard try fill() else { throw RawClientError(description: "connection closed inside a body") }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closes the connection (or resets it) within the read timeout, with no more bytes.
    func waitForClose() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    /// True when the server has closed (or reset) the connection, waiting up to `waitSeconds` for it; bytes that
    /// arrive meanwhile are kept in the buffer.
    func isClosed(waitSeconds: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(waitSeconds * 1000)) > 0 else { return false }
        return (try? fill()) == false
    }

    /// Bytes received but not consumed by `readResponse` (e.g. a body sent for HEAD would show up here).
    func pendingBytes(waitSeconds: Double) -> Int {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&pfd, 1, Int32(waitSeconds * 1000)) > 0 { _ = try? fill() }
        return buffer.count
    }

    private func firstIndex(of pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] {
            if Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var s = self
        while s.first == character { s.removeFirst() }
        while s.last == character { s.removeLast() }
        return String(s)
    }
}
