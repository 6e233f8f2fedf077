import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal blocking HTTP/1.1 client for loopback (one connection per request), fast enough for write loops
/// of thousands of requests where a `curl` process per request would not be.
struct LoopbackHTTP {
    struct Response {
        var status: Int
        var body: String
    }

    let port: UInt16

    /// The client for a server URL such as `http://127.0.0.1:8080`.
    init(url: String) {
        port = UInt16(url.split(separator: ":").last.flatMap { Int($0) } ?? 0)
    }

    func request(_ method: String, _ path: String, token: String? = nil, body: String? = nil) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        let payload = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + payload
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let statusText = text.split(separator: " ", maxSplits: 2).dropFirst().first, let status = Int(statusText),
            let split = text.range(of: "\r\n\r\n")
        else { throw POSIXError(.EBADMSG) }
        return Response(status: status, body: String(text[split.upperBound...]))
    }
}
