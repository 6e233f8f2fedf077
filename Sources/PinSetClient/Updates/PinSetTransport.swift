import Foundation

/// The HTTP client the updater fetches documents with. ``URLSessionTransport`` is the default; inject another
/// (a NIO client, a test server) by conforming to this.
public protocol PinSetTransport: Sendable {
    /// Performs `GET url` with `headers` and returns the answer. Throws only for transport failures (DNS, TCP,
    /// TLS, timeout); HTTP error statuses are returned, not thrown.
    func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse
}

/// An HTTP answer as the updater needs it.
public struct TransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields, names lowercased.
    public var headers: [String: String]
    /// The body (empty for 304).
    public var body: [UInt8]

    /// Creates a response; header names are lowercased.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    /// `max-age` of `Cache-Control`, in seconds, if present and valid.
    public var maxAge: Int? {
        guard let value = headers["cache-control"] else { return nil }
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]), seconds >= 0 {
                return seconds
            }
        }
        return nil
    }
}
