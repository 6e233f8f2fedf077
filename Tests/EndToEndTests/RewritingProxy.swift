import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile network on loopback: an HTTP proxy between the updater and the real pin server that rewrites
/// answers according to its current ``Mode``. Blocking POSIX sockets, one thread per connection, every answer
/// `Connection: close`.
final class RewritingProxy: @unchecked Sendable {
    /// What the proxy does with the next request.
    enum Mode: Sendable {
        /// Forwards the request (with `If-None-Match`) and relays the answer unchanged.
        case pass
        /// Fetches the same path and serves `rewrite(body)` as a 200.
        case rewrite(@Sendable ([UInt8]) -> [UInt8])
        /// Fetches `path` from the server instead (another host's document) and serves it as a 200.
        case substitute(path: String)
        /// Serves these bytes as a 200 (a replayed old document).
        case replay([UInt8])
        /// Serves `bytes` bytes of body, with or without announcing a `Content-Length`.
        case huge(bytes: Int, announced: Bool)
        /// Announces the full length of the real body, sends half of it and closes.
        case cutShort
        /// Sends the real answer's head, then its body one byte every `interval` seconds.
        case drip(interval: Double)
    }

    let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var mode: Mode = .pass
    private var stopped = false

    init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw ProxyError("bind/listen failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Sets how the next requests are answered.
    func set(_ mode: Mode) { lock.withLock { self.mode = mode } }

    /// Stops accepting; connections in progress finish on their own.
    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        // Only shut down here: the accept loop closes the socket when it ends, so it never calls accept() on a
        // descriptor number that another test's server may have been given meanwhile.
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if lock.withLock({ stopped }) { return }
                continue
            }
            if lock.withLock({ stopped }) {
                close(client)
                return
            }
            let mode = lock.withLock { self.mode }
            Thread { [self] in
                defer { close(client) }
                serve(client, mode: mode)
            }.start()
        }
    }

    private func serve(_ client: Int32, mode: Mode) {
        guard let head = readHead(client), let requestLine = head.split(separator: "\r\n").first else { return }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { return }
        let path = String(parts[1])
        let ifNoneMatch = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("if-none-match:") }
        switch mode {
        case .pass:
            guard let upstream = fetch(path, extra: ifNoneMatch.map { String($0) + "\r\n" } ?? "") else { return }
            writeAll(client, upstream.raw)
        case .rewrite(let transform):
            guard let upstream = fetch(path) else { return }
            answer(client, body: transform(upstream.body))
        case .substitute(let other):
            guard let upstream = fetch(other) else { return }
            answer(client, body: upstream.body)
        case .replay(let body):
            answer(client, body: body)
        case .huge(let count, let announced):
            let length = announced ? "Content-Length: \(count)\r\n" : ""
            writeAll(
                client,
                Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(length)Connection: close\r\n\r\n".utf8))
            // `{"protected":"AAAA…` forever: it looks like the start of a document.
            let prefix = Array(#"{"protected":""#.utf8)
            var sent = 0
            let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 65_536)
            if !writeAll(client, prefix) { return }
            sent += prefix.count
            while sent < count {
                let piece = min(chunk.count, count - sent)
                if !writeAll(client, Array(chunk[0..<piece])) { return }  // the client hung up: good
                sent += piece
            }
        case .cutShort:
            guard let upstream = fetch(path) else { return }
            writeAll(client, head200(length: upstream.body.count))
            writeAll(client, Array(upstream.body.prefix(upstream.body.count / 2)))
        case .drip(let interval):
            guard let upstream = fetch(path) else { return }
            writeAll(client, head200(length: upstream.body.count))
            for byte in upstream.body {
                if !writeAll(client, [byte]) { return }
                usleep(UInt32(interval * 1_000_000))
            }
        }
    }

    private func head200(length: Int) -> [UInt8] {
        Array(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=1\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
                .utf8)
    }

    private func answer(_ client: Int32, body: [UInt8]) {
        writeAll(client, head200(length: body.count) + body)
    }

    /// GET `path` from the real server with `Connection: close`; the raw answer and its body.
    private func fetch(_ path: String, extra: String = "") -> (raw: [UInt8], body: [UInt8])? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = upstreamPort.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\(extra)Connection: close\r\n\r\n"
        guard writeAll(upstream, Array(request.utf8)) else { return nil }
        var raw: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            raw += buffer[0..<n]
        }
        guard let end = find([13, 10, 13, 10], in: raw) else { return nil }
        return (raw, Array(raw[(end + 4)...]))
    }

    private func readHead(_ fd: Int32) -> String? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 16_384 {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
            if head.count >= 4 && head.suffix(4) == [13, 10, 13, 10] { return String(decoding: head, as: UTF8.self) }
        }
        return nil
    }

    @discardableResult
    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    private func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for i in 0...(bytes.count - pattern.count) where bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
            return i
        }
        return nil
    }
}

struct ProxyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
