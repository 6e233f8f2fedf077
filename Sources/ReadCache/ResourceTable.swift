import MicroHTTPD

/// An open-addressing hash table of ``CachedResource``s keyed by their key bytes, looked up with the bytes of a
/// request path without allocating.
///
/// A `[String: Resource]` made a heap `String` per key (names over 15 bytes are not stored inline) and made the
/// read path build a `String` from the URL, which allocates for those same names. Here the key is the one
/// already stored in the resource, and a lookup hashes the URL bytes in place. Resources are only added or
/// replaced, never removed. Not thread-safe: guard it with a lock. (``ResourceIndex`` is the thread-safe variant
/// for many resources, which bounds the memory their built responses take.)
public struct ResourceTable {
    private var slots = KeyedSlots<CachedResource>()

    /// An empty table.
    public init() {}

    /// How many resources are stored.
    public var count: Int { slots.count }

    /// The resource whose key is the rest of `request`'s path after `prefix` (e.g. `/pins/`), or `nil` when the
    /// path does not start with `prefix` or no key matches. Allocates nothing.
    @inline(__always)
    public func find(pathAfter prefix: StaticString, of request: HTTPRequest) -> CachedResource? {
        request.withPathBytes { path in
            KeyedSlots<CachedResource>.key(after: prefix, in: path).flatMap { slots.find($0) }
        }
    }

    /// The resource whose key is exactly `key`, or `nil`.
    public func find(_ key: String) -> CachedResource? {
        slots.find(key)
    }

    /// Stores `resource` under its key, replacing the one already there when `replaces` says so (the caller's
    /// rule, e.g. an older version never replaces a newer one; default: always). Returns the resource left out
    /// (the replaced one, or `resource` itself), so the caller can release it outside its lock.
    @discardableResult
    public mutating func insert(
        _ resource: CachedResource, replaces: (_ current: CachedResource) -> Bool = { _ in true }
    ) -> CachedResource? {
        slots.insert(resource, replaces: replaces)
    }
}
