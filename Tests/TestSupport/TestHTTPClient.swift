import Foundation

/// The test targets' one HTTP/1.1 client: blocking, one connection per request over a real loopback socket (a
/// ``RawConnection``), so tests see exactly what the server sends (status, headers, body) with no client-side
/// caching or redirects, fast enough for write loops of thousands of requests.
public struct TestHTTPClient: Sendable {
    /// An answer as received.
    public struct Response {
        /// The status code.
        public var status: Int
        /// The headers, by lower-case name.
        public var headers: [String: String]
        /// The body (de-chunked).
        public var body: [UInt8]
        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The value of header `name` (any case).
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        /// The body as a JSON object.
        public func json() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
        }
    }

    /// The server's port on 127.0.0.1.
    public let port: UInt16

    /// A client for `127.0.0.1:port`.
    public init(port: UInt16) { self.port = port }

    /// A client for a loopback server's URL such as `http://127.0.0.1:8080` (a banner's; any path is ignored).
    public init(url: String) {
        let authority = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        self.init(port: UInt16(authority.split(separator: ":").last.flatMap { Int($0) } ?? 0))
    }

    /// Sends one request on a new connection and reads the answer to the end.
    public func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) throws -> Response {
        let connection = try RawConnection(port: port, timeout: 10)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try? connection.send(Array(head.utf8) + (body ?? []))  // a server may answer (413) before the body is in
        let received = connection.readToEnd()
        return try Self.parse(received, head: method == "HEAD")
    }

    /// Parses a whole answer (`head`: the answer to a HEAD, whose body is empty).
    public static func parse(_ data: [UInt8], head: Bool) throws -> Response {
        guard let split = data.firstRange(of: Array("\r\n\r\n".utf8)) else { throw POSIXError(.EBADMSG) }
        let lines = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw POSIXError(.EBADMSG) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(data[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: head ? [] : body)
    }

    private static func dechunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = data[index...].firstRange(of: Array("\r\n".utf8)) {
            let size = Int(String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            out += data[start..<min(start + size, data.count)]
            index = start + size + 2
            if index >= data.count { break }
        }
        return out
    }
}
