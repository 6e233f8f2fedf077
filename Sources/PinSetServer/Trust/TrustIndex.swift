import Locking
import PinSetCore
import PinSetStorage
import ReadCache

/// The trust documents as served: `GET /trust` (the newest, with the refresh `max-age`) and `GET /trust/{version}`
/// (immutable, long `max-age`), each a ``CachedResource`` (one copy of the body, the 200 and 304 built once,
/// with its ETag), the same way ``DocumentIndex`` serves pin documents. Swapped atomically on a push.
final class TrustIndex: Sendable {
    private struct State {
        var newest: CachedResource?
        var versions: [Int: CachedResource] = [:]
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
        let etag = PublishedDocument.etag(for: body)
        let key = "/trust/\(version)".utf8
        let numbered = CachedResource(
            key: key, etag: etag, body: body, version: version, contentType: "application/json",
            cacheControl: Self.immutableCacheControl)
        let newest = CachedResource(
            key: key, etag: etag, body: body, version: version, contentType: "application/json",
            cacheControl: cacheControl)
        state.withLock { state in
            state.versions[version] = numbered
            if version > state.newest?.version ?? 0 { state.newest = newest }
        }
    }

    /// The newest version served, if any.
    var newestVersion: Int? { state.withLock { $0.newest?.version } }

    /// The resource for `/trust` (`version == nil`) or `/trust/{version}`.
    func resource(version: Int?) -> CachedResource? {
        state.withLock { state in
            guard let version else { return state.newest }
            return state.versions[version]
        }
    }
}
