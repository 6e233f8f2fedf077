import MicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The admin console (issue 15): `GET /console` and `GET /console/{asset}`, served from memory.
///
/// Every answer is built once at start-up from ``ConsoleAssets`` (a `200` and a `304` per file), so a request
/// costs one dictionary lookup, like `GET /pins/{host}`, and never touches the pin documents. The console
/// is a static page: it reads and writes through the admin API with the token the user types, so the
/// answers here carry no secret and need no token.
final class ConsoleSite: Sendable {
    /// Sent with every console answer: no inline script or style, nothing from another origin, never framed.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        // Revalidate every time (a 304 is cheap): an upgraded server never leaves an old console in a browser.
        ("Cache-Control", "no-cache"),
    ]

    private struct Asset: Sendable {
        let ok: PreparedResponse
        let notModified: PreparedResponse
        let etag: [UInt8]
    }

    /// A file's bytes, stored once for both of its answers; libmicrohttpd keeps it alive while it sends them.
    private final class Bytes: @unchecked Sendable {
        /// Immutable after init.
        let body: UnsafeRawBufferPointer

        init(_ bytes: [UInt8]) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            body = UnsafeRawBufferPointer(buffer)
        }

        deinit { body.deallocate() }
    }

    /// Keyed by the path after `/console` (`""` and `"/"` are the page itself).
    private let assets: [String: Asset]

    /// Prepares the answers for `files` (default: the embedded console).
    init(files: [(name: String, contentType: String, text: String)] = ConsoleAssets.files) {
        var assets: [String: Asset] = [:]
        for file in files {
            let bytes = Bytes(Array(file.text.utf8))
            let etag = PublishedDocument.etag(for: Array(bytes.body))
            let headers = [("Content-Type", file.contentType), ("ETag", etag)] + Self.securityHeaders
            // The 304 is built over the 200's bytes (not sent) so its Content-Length is the 200's (RFC 9110 §8.6).
            let asset = Asset(
                ok: PreparedResponse(status: 200, headers: headers, body: bytes.body, owner: bytes),
                notModified: .notModified(
                    headers: headers.filter { $0.0 != "Content-Type" }, representation: bytes.body, owner: bytes),
                etag: Array(etag.utf8))
            assets["/" + file.name] = asset
            if file.name == "index.html" {
                assets[""] = asset
                assets["/"] = asset
            }
        }
        self.assets = assets
    }

    /// Whether `path` is the console's (`/console` or below it).
    static func owns(_ path: String) -> Bool {
        path == "/console" || path.hasPrefix("/console/")
    }

    /// Answers a request whose path ``owns(_:)``: the file, a `304` when `If-None-Match` names its ETag,
    /// `405` for methods other than `GET`, `404` for names that are not console files.
    func respond(to request: HTTPRequest, path: String) -> HTTPResponse {
        guard request.method == .get else { return Problem.methodNotAllowed(["GET"]).response }
        guard let asset = assets[String(path.dropFirst("/console".count))] else {
            return Problem.notFound("the console has no file at \(path.prefix(200)); open /console").response
        }
        let matches = request.withHeaderBytes("If-None-Match") { header in
            guard let header else { return false }
            return asset.etag.withUnsafeBytes { IfNoneMatch.matches(header, etag: $0) }
        }
        return .prepared(matches ? asset.notModified : asset.ok)
    }
}
