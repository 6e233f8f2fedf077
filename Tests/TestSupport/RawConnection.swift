import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test targets' one raw socket helper: a blocking loopback TCP connection for tests about the bytes on the
/// wire (keep-alive, pipelining, HEAD, trickled or malformed requests). ``TestHTTPClient`` sends whole requests
/// through it; a test opens one itself only when the bytes are what it checks.
public final class RawConnection {
    /// A socket call failed or the peer said something that is not HTTP.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public var description: String
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (an IPv4 or IPv6 literal) on `port`; reads time out after `timeout` seconds.
    public init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 5) throws {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6 = inet_pton(AF_INET, host, &v4.sin_addr) != 1
        if isV6 {
            guard inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 else { throw Failure(description: "bad host") }
        }
        fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
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
            let error = errno
            // Every stored property is set, so the throw runs `deinit`: it closes the socket, once. Closing it here
            // as well closed the same number twice, and the second close hit whatever descriptor another thread
            // had opened in between: a libmicrohttpd server's connection socket in the same test process, which
            // then aborted in MHD_cleanup_connections ("Failed to remove FD from epoll set", issue 40;
            // `RefusedConnectionTests`).
            throw Failure(description: "connect failed: errno \(error)")
        }
    }

    deinit { close() }

    /// Whether a TCP connection to `host`:`port` succeeds now.
    public static func accepts(host: String, port: Int) -> Bool {
        (try? RawConnection(port: UInt16(port), host: host)) != nil
    }

    /// Closes the socket (idempotent).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends `text` as UTF-8 bytes.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends all of `bytes`.
    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
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
        throw Failure(description: "recv failed: errno \(errno) (timeout?)")
    }

    /// Reads until the peer closes the connection (or the read times out); every byte not yet consumed.
    public func readToEnd() -> [UInt8] {
        while (try? fill()) == true {}
        defer { buffer = [] }
        return buffer
    }

    /// Reads one response framed by its `Content-Length`; `bodyless` for answers to HEAD (and 304s) that announce
    /// a length but carry no body.
    public func readResponse(bodyless: Bool = false) throws -> TestHTTPClient.Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int? = nil
        while headEnd == nil {
            if let range = buffer.firstRange(of: separator) {
                headEnd = range.lowerBound
                break
            }
            guard try fill() else { throw Failure(description: "connection closed before a response") }
        }
        var response = try TestHTTPClient.parse(Array(buffer[0..<headEnd! + 4]), head: true)
        buffer.removeFirst(headEnd! + 4)
        var length = Int(response.header("content-length") ?? "0") ?? 0
        if bodyless || response.status == 304 || response.status == 204 { length = 0 }
        while buffer.count < length {
            guard try fill() else { throw Failure(description: "connection closed inside a body") }
        }
        response.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return response
    }

    /// True when the server closes the connection (or resets it) within the read timeout, with no more bytes.
    public func waitForClose() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    /// True when the server has closed (or reset) the connection, waiting up to `waitSeconds` for it; bytes that
    /// arrive meanwhile are kept in the buffer.
    public func isClosed(waitSeconds: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(waitSeconds * 1000)) > 0 else { return false }
        return (try? fill()) == false
    }

    /// Bytes received but not consumed by ``readResponse(bodyless:)`` (a body sent for HEAD would show up here).
    public func pendingBytes(waitSeconds: Double) -> Int {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&pfd, 1, Int32(waitSeconds * 1000)) > 0 { _ = try? fill() }
        return buffer.count
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: a host that does not answer, silent at one of two stages.
/// - ``Stage/tls``: the kernel completes every connection (a backlog probes never fill) and nobody ever reads, so a
///   TLS probe connects and then waits for its deadline (a proxy hanging for a dead backend).
/// - ``Stage/tcp``: `listen(0)` with its one accept-queue slot taken by a connection the listener holds itself;
///   Linux then drops further SYNs, so a connect times out (a firewalled host). Checked on Debian 12: a
///   connect with a 1 s timeout times out, it is not refused.
public final class SilentListener {
    /// Where a probe of the listener gets no answer.
    public enum Stage: Sendable {
        /// The TCP connection is made; no TLS answer ever comes.
        case tls
        /// The TCP connection itself is never accepted.
        case tcp
    }

    private let fd: Int32
    private var held: Int32 = -1
    /// Its ephemeral port.
    public let port: UInt16

    /// Binds and listens on an ephemeral port, silent at `stage` (default ``Stage/tls``).
    public init(stage: Stage = .tls) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let backlog: Int32 = stage == .tcp ? 0 : 1024
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        port = UInt16(bigEndian: address.sin_port)
        if stage == .tcp {
            // Fill the accept queue's one slot with a connection of our own, never accepted.
            held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(held, $0, length) == 0 }
            }
            guard connected else {
                // Fully initialised: `deinit` closes `held` and `fd` (closing them here too closed them twice).
                throw POSIXError(.ECONNREFUSED)
            }
        }
    }

    deinit {
        if held >= 0 { Glibc.close(held) }
        Glibc.close(fd)
    }
}
