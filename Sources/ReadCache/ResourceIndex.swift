import Locking
import MicroHTTPD

/// Many resources of one kind (pinset: every host's document) served from memory by key, with their built
/// `200` and `304` responses kept for at most ``responseCapacity`` of them. Thread-safe.
///
/// Each resource is stored once (key, ETag, body and version in one allocation). Its libmicrohttpd responses
/// cost about 1.1 KB more (libmicrohttpd 0.9.75 copies every header into three allocations of its own), so
/// they are built on a resource's first request and kept in a ``ResponseClock``: once it is full, a resource
/// asked for twice more soon takes the place of one not asked for lately, and the others' answers are built for
/// their request and freed after it. Memory stays bounded however many resources are stored. A request for a
/// resource whose responses are kept (a hit) takes the lock for one hash-table lookup and allocates nothing;
/// a miss builds the one response it needs outside the lock, then offers it to the cache.
///
/// An evicted response that libmicrohttpd is still sending stays alive: the cache holds one reference of the
/// ``PreparedResponse``, the request being answered holds another until libmicrohttpd has queued it (and taken
/// its own reference), and the stored bytes live until libmicrohttpd destroys the last response over them.
public final class ResourceIndex: Sendable {
    private struct State {
        var resources = KeyedSlots<ResourceBytes>()
        var responses: ResponseClock
    }

    /// What one locked lookup found.
    private enum Lookup {
        case unknown
        case hit(PreparedResponse)
        case miss(ResourceBytes, notModified: Bool)
    }

    private let state: Locked<State>
    private let template: ResponseTemplate
    /// The most resources whose responses are kept built.
    public let responseCapacity: Int

    /// An empty index.
    /// - Parameters:
    ///   - contentType: the `200`s' `Content-Type`.
    ///   - cacheControl: the `Cache-Control` of every answer.
    ///   - extraHeaders: sent with every answer after those; default none.
    ///   - responseCapacity: the most resources whose `200` and `304` are kept built (about 1.1 KB each when
    ///     both are); `0` builds every answer for its request.
    /// - Precondition: `responseCapacity` is in `0..<Int32.max`.
    public init(
        contentType: String, cacheControl: String, extraHeaders: [(String, String)] = [], responseCapacity: Int
    ) {
        template = ResponseTemplate(contentType: contentType, cacheControl: cacheControl, extraHeaders: extraHeaders)
        self.responseCapacity = responseCapacity
        state = Locked(State(responses: ResponseClock(capacity: responseCapacity)))
    }

    /// Stores a resource (copying the bytes once), replacing the one of the same key unless that one has a
    /// higher version: a resource never goes back to an older version. Returns whether it was stored. The
    /// replaced resource's responses are released after the lock, not while readers wait.
    @discardableResult
    public func insert(
        key: some Collection<UInt8>, etag: some Collection<UInt8>, body: some Collection<UInt8>, version: Int
    ) -> Bool {
        insert(ResourceBytes.make(key: key, etag: etag, body: body, version: version))
    }

    /// ``insert(key:etag:body:version:)`` from raw bytes (a bulk load straight from database rows: no generic
    /// collection code per row).
    @discardableResult
    public func insert(
        key: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, version: Int
    ) -> Bool {
        insert(ResourceBytes.make(key: key, etag: etag, body: body, version: version))
    }

    private func insert(_ resource: ResourceBytes) -> Bool {
        let version = resource.version
        let (left, released): (ResourceBytes?, ResponseClock.Entry?) = state.withLock { state in
            let left = state.resources.insert(resource) { $0.version <= version }
            guard let left, left !== resource else { return (left, nil) }
            return (left, state.responses.retire(left))
        }
        _ = released
        return left !== resource
    }

    /// Stores `resources` under one lock, each as ``insert(_:)`` would (an older version never replaces a newer
    /// one). The table slots they land in are looked up ahead of the stores (``KeyedSlots/insert(contentsOf:replaces:)``).
    func insert(contentsOf resources: [ResourceBytes]) {
        let released: [ResponseClock.Entry] = state.withLock { state in
            let replaced = state.resources.insert(contentsOf: resources) { current, new in
                current.version <= new.version
            }
            return replaced.compactMap { state.responses.retire($0) }
        }
        _ = released
    }

    /// Makes room for `count` resources in all before a bulk load.
    public func reserveCapacity(_ count: Int) {
        state.withLock { $0.resources.reserveCapacity(count) }
    }

    /// The answer for the resource whose key is the rest of `request`'s path after `prefix` (e.g. `/pins/`):
    /// `304` when `If-None-Match` names its ETag (RFC 9110 §13.1.2, weak comparison), else `200`. `nil` when
    /// the path does not start with `prefix` or no key matches. Allocates nothing when the answer is kept built.
    @inline(__always)
    public func response(pathAfter prefix: StaticString, of request: HTTPRequest) -> PreparedResponse? {
        request.withPathBytes { path in
            KeyedSlots<ResourceBytes>.key(after: prefix, in: path).flatMap { response(key: $0, to: request) }
        }
    }

    /// The answer for the resource whose key is exactly `key`, as ``response(pathAfter:of:)``.
    public func response(key: String, to request: HTTPRequest) -> PreparedResponse? {
        var key = key
        return key.withUTF8 { response(key: UnsafeRawBufferPointer($0), to: request) }
    }

    @inline(__always)
    private func response(key: UnsafeRawBufferPointer, to request: HTTPRequest) -> PreparedResponse? {
        let found: Lookup = request.withHeaderBytes("If-None-Match") { header in
            state.withLock { state in
                guard let resource = state.resources.find(key) else { return .unknown }
                resource.prefetch()
                let fresh = header.map { header in resource.withETag { IfNoneMatch.matches(header, etag: $0) } }
                if let response = state.responses.response(of: resource, notModified: fresh == true) {
                    return .hit(response)
                }
                return .miss(resource, notModified: fresh == true)
            }
        }
        switch found {
        case .unknown: return nil
        case .hit(let response): return response
        case .miss(let resource, let notModified): return build(resource, notModified: notModified)
        }
    }

    /// The cold path: builds the answer outside the lock, then keeps it (evicting another resource's when full).
    @inline(never)
    private func build(_ resource: ResourceBytes, notModified: Bool) -> PreparedResponse {
        let built = template.response(resource, notModified: notModified)
        let (serve, released) = state.withLock { $0.responses.store(built, of: resource, notModified: notModified) }
        _ = released
        return serve
    }

    /// Backs the stored resources and the lookup table with 2 MiB pages where Linux allows it (``HugePages``):
    /// a lookup among a million resources then costs cache misses but hardly any TLB misses. Returns how many
    /// 2 MiB regions were found and how many now use a huge page (both `0` off Linux, or when the system's
    /// transparent huge pages are `never`).
    ///
    /// - Warning: Slow and blocking (it copies the memory in place: about 3 s of CPU per GB): call it once after a
    ///   bulk load, on a background thread, never on a request. The lock is taken once per 16,384 slots, to read
    ///   their addresses; the copying happens outside it.
    @discardableResult
    public func adviseHugePages() -> (regions: Int, collapsed: Int) {
        guard HugePages.allowed else { return (0, 0) }
        var regions = Set<UInt>()
        state.withLock { $0.resources.addTableRegions(into: &regions) }
        let chunk = 16_384
        var start = 0
        while state.withLock({ state in
            state.resources.addElementRegions(ofSlots: start..<start + chunk, into: &regions)
            return start + chunk < state.resources.capacity
        }) {
            start += chunk
        }
        return (regions.count, HugePages.back(regions: regions))
    }

    /// Whether a resource has the key `key`.
    public func contains(_ key: String) -> Bool {
        state.withLock { $0.resources.find(key) != nil }
    }

    /// One stored resource's version, ETag and body, copied (slow paths and tests).
    public func resource(_ key: String) -> (version: Int, etag: String, body: [UInt8])? {
        guard let resource = state.withLock({ $0.resources.find(key) }) else { return nil }
        return (
            resource.version, resource.withETag { String(decoding: $0, as: UTF8.self) },
            resource.withBody { Array($0) }
        )
    }

    /// How many resources are stored.
    public var count: Int { state.withLock { $0.resources.count } }

    /// How many resources have their responses kept built (at most ``responseCapacity``).
    public var builtCount: Int { state.withLock { $0.responses.count } }
}
