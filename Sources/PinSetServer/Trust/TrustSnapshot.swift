import Locking
import MicroHTTPD
import OpenSSLCrypto
import PinSetCore

/// The trust documents as served: `GET /trust` (the newest, with the refresh `max-age`) and `GET /trust/{version}`
/// (immutable, long `max-age`), each a response built once, with its ETag. Swapped atomically on a push.
final class TrustSnapshot: Sendable {
    /// One served body: its ETag and the pre-built 200 and 304 answers.
    struct Entry: Sendable {
        let etag: String
        let ok: PreparedResponse
        let notModified: PreparedResponse
    }

    private struct State {
        var newest: Entry?
        var newestVersion: Int?
        var versions: [Int: Entry] = [:]
    }

    private let state = Locked(State())
    private let cacheControl: String

    /// A year: a numbered trust document never changes.
    static let immutableCacheControl = "public, max-age=31536000, immutable"

    init(maxAge: Int) {
        cacheControl = "public, max-age=\(maxAge)"
    }

    /// Serves `body` as `/trust/{version}` and, when it is the newest, as `/trust`.
    func publish(version: Int, body: [UInt8]) {
        let etag = "\"" + Base64URL.encode(SHA256Digest.hash(body).prefix(18)) + "\""
        let numbered = Self.entry(body: body, etag: etag, cacheControl: Self.immutableCacheControl)
        let newest = Self.entry(body: body, etag: etag, cacheControl: cacheControl)
        state.withLock { state in
            state.versions[version] = numbered
            if version > state.newestVersion ?? 0 {
                state.newest = newest
                state.newestVersion = version
            }
        }
    }

    /// The newest version served, if any.
    var newestVersion: Int? { state.withLock { $0.newestVersion } }

    /// The entry for `/trust` (`version == nil`) or `/trust/{version}`.
    func entry(version: Int?) -> Entry? {
        state.withLock { state in
            guard let version else { return state.newest }
            return state.versions[version]
        }
    }

    private static func entry(body: [UInt8], etag: String, cacheControl: String) -> Entry {
        let headers = [("ETag", etag), ("Cache-Control", cacheControl)]
        return Entry(
            etag: etag,
            ok: PreparedResponse(status: 200, headers: [("Content-Type", "application/json")] + headers, body: body),
            notModified: PreparedResponse(status: 304, headers: headers, body: []))
    }
}
