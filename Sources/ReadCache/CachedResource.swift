import MicroHTTPD
import Synchronization

/// A resource served from memory: its key, ETag and body stored once, and its `200` and `304` responses built
/// the first time they are asked for, then reused for every later request without allocating.
///
/// Immutable once made and safe to share between libmicrohttpd's threads. The body is never copied again:
/// the responses are built over it, and libmicrohttpd keeps the bytes alive (one retain) while it sends a
/// response, even after the resource itself was replaced and released. The cached responses are released
/// with the resource: no cycle, since a response retains only the bytes, never the resource.
public final class CachedResource: @unchecked Sendable {
    // @unchecked: `bytes` is immutable once made (ResourceBytes) and the two slots are atomics.
    let bytes: ResourceBytes
    /// The application's version of the resource: a ``ResourceTable`` never replaces it with a lower one.
    public let version: Int
    private let template: ResponseTemplate
    private let ok = Atomic<Unmanaged<PreparedResponse>?>(nil)
    private let notModified = Atomic<Unmanaged<PreparedResponse>?>(nil)

    /// Stores `key`, `etag` and `body` in one allocation (copied once).
    /// - Parameters:
    ///   - key: the bytes a ``ResourceTable`` finds it by (pinset: the host name).
    ///   - etag: a strong entity tag, quotes included.
    ///   - body: the `200`'s body.
    ///   - version: ordering between resources of one key (``ResourceTable/insert(_:)``).
    ///   - contentType: the `200`'s `Content-Type`.
    ///   - cacheControl: the `Cache-Control` of both answers.
    ///   - extraHeaders: sent with both answers after those (security headers, for example); default none.
    public init(
        key: some Collection<UInt8>, etag: String, body: some Collection<UInt8>, version: Int, contentType: String,
        cacheControl: String, extraHeaders: [(String, String)] = []
    ) {
        bytes = ResourceBytes.make(key: key, etag: etag.utf8, body: body, version: version)
        self.version = version
        template = ResponseTemplate(contentType: contentType, cacheControl: cacheControl, extraHeaders: extraHeaders)
    }

    deinit {
        ok.load(ordering: .acquiring)?.release()
        notModified.load(ordering: .acquiring)?.release()
    }

    /// Calls `body` with the key's bytes (no allocation).
    @inline(__always)
    func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withKey(body)
    }

    /// The ETag, quotes included (allocates: slow paths only).
    public var etag: String { bytes.withETag { String(decoding: $0, as: UTF8.self) } }

    /// The key (allocates: slow paths only).
    public var key: String { bytes.withKey { String(decoding: $0, as: UTF8.self) } }

    /// The body's length in bytes.
    public var bodyCount: Int { bytes.withBody { $0.count } }

    /// A copy of the body (allocates: tests and slow paths only).
    public var body: [UInt8] { bytes.withBody { Array($0) } }

    /// The answer to a `GET` or `HEAD` of this resource: `304` when `If-None-Match` names its ETag (RFC 9110
    /// §13.1.2, weak comparison), else `200`. Allocates nothing once both answers were built.
    @inline(__always)
    public func response(to request: HTTPRequest) -> PreparedResponse {
        let fresh = request.withHeaderBytes("If-None-Match") { header in
            guard let header else { return false }
            return bytes.withETag { IfNoneMatch.matches(header, etag: $0) }
        }
        return fresh ? notModifiedResponse : okResponse
    }

    /// The `200`: `Content-Type`, `ETag`, `Cache-Control` and the stored body, not copied.
    public var okResponse: PreparedResponse {
        Self.cached(ok) { template.ok(bytes) }
    }

    /// The `304`: `ETag` and `Cache-Control`, no body (see ``ResponseTemplate/notModified(_:)`` for its
    /// `Content-Length`).
    public var notModifiedResponse: PreparedResponse {
        Self.cached(notModified) { template.notModified(bytes) }
    }

    /// The response in `slot`, built by `build` and stored there the first time (the first writer wins; a thread
    /// that lost the race frees its own copy).
    @inline(__always)
    private static func cached(
        _ slot: borrowing Atomic<Unmanaged<PreparedResponse>?>, _ build: () -> PreparedResponse
    ) -> PreparedResponse {
        if let existing = slot.load(ordering: .acquiring) { return existing.takeUnretainedValue() }
        return buildOnce(slot, build)
    }

    @inline(never)
    private static func buildOnce(
        _ slot: borrowing Atomic<Unmanaged<PreparedResponse>?>, _ build: () -> PreparedResponse
    ) -> PreparedResponse {
        let built = Unmanaged.passRetained(build())
        let (stored, current) = slot.compareExchange(expected: nil, desired: built, ordering: .acquiringAndReleasing)
        if stored { return built.takeUnretainedValue() }
        built.release()
        return current!.takeUnretainedValue()
    }
}

extension CachedResource: KeyedByBytes {}
