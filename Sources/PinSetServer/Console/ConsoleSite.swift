import MicroHTTPD
import PinSetStorage
import ReadCache

/// The admin console (issue 15): `GET /console` and `GET /console/{asset}`, served from memory.
///
/// Every file is a ``CachedResource`` made once at start-up from ``ConsoleAssets`` (its `200` and `304` built on
/// first use), so a request costs one dictionary lookup, like `GET /pins/{host}`, and never touches the pin
/// documents. The console is a static page: it reads and writes through the admin API with the token the user
/// types, so the answers here carry no secret and need no token.
final class ConsoleSite: Sendable {
    /// Sent with every console answer: no inline script or style, nothing from another origin, never framed.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    /// Keyed by the path after `/console` (`""` and `"/"` are the page itself).
    private let assets: [String: CachedResource]

    /// Prepares the answers for `files` (default: the embedded console).
    init(files: [(name: String, contentType: String, text: String)] = ConsoleAssets.files) {
        var assets: [String: CachedResource] = [:]
        for file in files {
            let body = Array(file.text.utf8)
            // Revalidate every time (a 304 is cheap): an upgraded server never leaves an old console in a browser.
            let asset = CachedResource(
                key: file.name.utf8, etag: PublishedDocument.etag(for: body), body: body, version: 0,
                contentType: file.contentType, cacheControl: "no-cache", extraHeaders: Self.securityHeaders)
            assets["/" + file.name] = asset
            if file.name == "index.html" {
                assets[""] = asset
                assets["/"] = asset
            }
        }
        self.assets = assets
    }

    /// Answers `GET /console` or `GET /console/{asset}` (the route table matched it): the file, a `304` when
    /// `If-None-Match` names its ETag, `404` for names that are not console files.
    func respond(to request: HTTPRequest, path: String) throws -> HTTPResponse {
        guard let asset = assets[String(path.dropFirst("/console".count))] else {
            throw Problem.notFound("the console has no file at \(path.prefix(200)); open /console")
        }
        return .prepared(asset.response(to: request))
    }
}
