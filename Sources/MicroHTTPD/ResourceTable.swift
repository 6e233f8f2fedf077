#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open-addressing hash table of ``CachedResource``s keyed by their key bytes, looked up with the bytes of a
/// request path without allocating.
///
/// A `[String: Resource]` made a heap `String` per key (names over 15 bytes are not stored inline) and made the
/// read path build a `String` from the URL, which allocates for those same names. Here the key is the one
/// already stored in the resource, and a lookup hashes the URL bytes in place (seeded SipHash through `Hasher`,
/// as `Dictionary` does). Resources are only added or replaced, never removed, so linear probing needs no
/// tombstones. Not thread-safe: guard it with a lock.
public struct ResourceTable {
    private var slots: ContiguousArray<CachedResource?>
    /// `slots.count - 1`; the capacity is a power of two.
    private var mask: Int
    /// How many resources are stored.
    public private(set) var count = 0

    /// An empty table.
    public init() {
        slots = ContiguousArray(repeating: nil, count: 16)
        mask = 15
    }

    /// The resource whose key is the rest of `request`'s path after `prefix` (e.g. `/pins/`), or `nil` when the
    /// path does not start with `prefix` or no key matches. Allocates nothing.
    @inline(__always)
    public func find(pathAfter prefix: StaticString, of request: HTTPRequest) -> CachedResource? {
        request.withPathBytes { path in
            let count = prefix.utf8CodeUnitCount
            guard path.count > count, memcmp(path.baseAddress!, prefix.utf8Start, count) == 0 else { return nil }
            return find(UnsafeRawBufferPointer(rebasing: path[count...]))
        }
    }

    /// The resource whose key is exactly `key`, or `nil`.
    public func find(_ key: String) -> CachedResource? {
        var key = key
        return key.withUTF8 { find(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    private static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return hasher.finalize()
    }

    @inline(__always)
    private func find(_ key: UnsafeRawBufferPointer) -> CachedResource? {
        var index = Self.hash(key) & mask
        while let resource = slots[index] {
            if resource.bytes.withKey({ Self.equal($0, key) }) { return resource }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Stores `resource` under its key, replacing the one already there when `replaces` says so (the caller's
    /// rule, e.g. an older version never replaces a newer one; default: always). Returns the resource left out
    /// (the replaced one, or `resource` itself), so the caller can release it outside its lock.
    @discardableResult
    public mutating func insert(
        _ resource: CachedResource, replaces: (_ current: CachedResource) -> Bool = { _ in true }
    ) -> CachedResource? {
        if (count + 1) * 2 > slots.count { grow() }
        return resource.bytes.withKey { key in
            var index = Self.hash(key) & mask
            while let current = slots[index] {
                if current.bytes.withKey({ Self.equal($0, key) }) {
                    guard replaces(current) else { return resource }
                    slots[index] = resource
                    return current
                }
                index = (index + 1) & mask
            }
            slots[index] = resource
            count += 1
            return nil
        }
    }

    /// Doubles the capacity (load factor stays at most 1/2, so probe chains stay short).
    private mutating func grow() {
        let old = slots
        slots = ContiguousArray(repeating: nil, count: old.count * 2)
        mask = slots.count - 1
        for case let resource? in old {
            var index = resource.bytes.withKey(Self.hash) & mask
            while slots[index] != nil { index = (index + 1) & mask }
            slots[index] = resource
        }
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }
}
