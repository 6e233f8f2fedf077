import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches documents with `URLSession` (FoundationNetworking on Linux, where fetching works but pinning does not).
///
/// Uses an ephemeral session with HTTP caching off, so `If-None-Match` and `304` reach the updater untouched.
/// The fetch itself is protected by the document signature, not by pinning the pin server.
public struct URLSessionTransport: PinSetTransport {
    private let session: URLSession
    /// Per-request timeout in seconds.
    public let timeout: TimeInterval

    /// Creates a transport.
    /// - Parameters:
    ///   - session: the session to use; default an ephemeral one without a URL cache.
    ///   - timeout: per-request timeout, default 30 seconds.
    public init(session: URLSession? = nil, timeout: TimeInterval = 30) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: configuration)
        }
        self.timeout = timeout
    }

    /// Performs the GET.
    public func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: fields, body: [UInt8](data))
    }
}
