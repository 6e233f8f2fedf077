internal import CPrefetch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An object a ``KeyedSlots`` table finds by its key bytes.
protocol KeyedByBytes: AnyObject {
    /// Calls `body` with the key's bytes, without allocating.
    func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

/// An open-addressing hash table of objects keyed by bytes they store themselves, looked up with borrowed
/// bytes (a request path) without allocating: the storage under ``ResourceTable`` and ``ResourceIndex``.
///
/// A lookup hashes the bytes in place (seeded SipHash through `Hasher`, as `Dictionary` does). Elements are only
/// added or replaced, never removed, so linear probing needs no tombstones. Not thread-safe.
struct KeyedSlots<Element: KeyedByBytes> {
    private var slots: ContiguousArray<Element?>
    /// One byte per slot: `0` when empty, else 7 bits of the element's hash (with the low bit set). A probe
    /// compares these first and reads an element's key only when they agree, so a lookup or an insert touches
    /// no other element's memory (at a million hosts each such read is a cache miss). 1 byte per slot.
    private var tags: ContiguousArray<UInt8>
    /// `slots.count - 1`; the capacity is a power of two.
    private var mask: Int
    /// How many elements are stored.
    private(set) var count = 0

    /// An empty table.
    init() {
        slots = ContiguousArray(repeating: nil, count: 16)
        tags = ContiguousArray(repeating: 0, count: 16)
        mask = 15
    }

    /// The key in `path` after `prefix` (e.g. `/pins/`), or `nil` when `path` does not start with it or has
    /// nothing after it.
    @inline(__always)
    static func key(after prefix: StaticString, in path: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let count = prefix.utf8CodeUnitCount
        guard path.count > count, memcmp(path.baseAddress!, prefix.utf8Start, count) == 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: path[count...])
    }

    @inline(__always)
    private static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return hasher.finalize()
    }

    /// The tag of `hash`: its top 7 bits, never `0`.
    @inline(__always)
    private static func tag(_ hash: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: UInt(bitPattern: hash) >> 57) << 1 | 1
    }

    /// The element whose key is exactly `key`, or `nil`.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer) -> Element? {
        let hash = Self.hash(key)
        let tag = Self.tag(hash)
        var index = hash & mask
        return tags.withUnsafeBufferPointer { tags in
            while true {
                let found = tags[index]
                if found == 0 { return nil }
                if found == tag, let element = slots[index], element.withKey({ Self.equal($0, key) }) {
                    return element
                }
                index = (index + 1) & mask
            }
        }
    }

    /// The element whose key is exactly `key`, or `nil` (slow paths).
    func find(_ key: String) -> Element? {
        var key = key
        return key.withUTF8 { find(UnsafeRawBufferPointer($0)) }
    }

    /// Stores `element` under its key, replacing the one already there when `replaces` says so. Returns the
    /// element left out (the replaced one, or `element` itself), so the caller can release it outside its lock.
    mutating func insert(_ element: Element, replaces: (_ current: Element) -> Bool) -> Element? {
        if (count + 1) * 2 > slots.count { resize(to: slots.count * 2) }
        return insert(element, hash: element.withKey { Self.hash($0) }, replaces: replaces)
    }

    /// ``insert(_:replaces:)`` with the key's hash already computed and room already made.
    @inline(__always)
    private mutating func insert(_ element: Element, hash: Int, replaces: (_ current: Element) -> Bool) -> Element? {
        element.withKey { key in
            let tag = Self.tag(hash)
            var index = hash & mask
            while tags[index] != 0 {
                if tags[index] == tag, let current = slots[index], current.withKey({ Self.equal($0, key) }) {
                    guard replaces(current) else { return element }
                    slots[index] = element
                    return current
                }
                index = (index + 1) & mask
            }
            slots[index] = element
            tags[index] = tag
            count += 1
            return nil
        }
    }

    /// Stores every element of `elements` as ``insert(_:replaces:)`` would, `replaces` being given the element
    /// there and the new one; returns the elements replaced. A bulk load: the hashes of a group of keys are
    /// computed first and their slots prefetched, so that the table's cache misses (one or two per insert among a
    /// million elements) overlap instead of coming one at a time.
    mutating func insert(
        contentsOf elements: [Element], replaces: (_ current: Element, _ new: Element) -> Bool
    ) -> [Element] {
        reserveCapacity(count + elements.count)
        var replaced: [Element] = []
        let group = 16
        withUnsafeTemporaryAllocation(of: Int.self, capacity: group) { hashes in
            var start = 0
            while start < elements.count {
                let end = min(start + group, elements.count)
                for index in start..<end {
                    let hash = elements[index].withKey { Self.hash($0) }
                    hashes[index - start] = hash
                    tags.withUnsafeBufferPointer { cprefetch($0.baseAddress! + (hash & mask), 1) }
                    slots.withUnsafeBufferPointer { cprefetch($0.baseAddress! + (hash & mask), 1) }
                }
                for index in start..<end {
                    let element = elements[index]
                    let left = insert(element, hash: hashes[index - start]) { replaces($0, element) }
                    if let left, left !== element { replaced.append(left) }
                }
                start = end
            }
        }
        return replaced
    }

    /// How many slots the table has (a power of two, at least twice ``count``).
    var capacity: Int { slots.count }

    /// Adds to `regions` the ``HugePages`` regions of the table's own two arrays.
    func addTableRegions(into regions: inout Set<UInt>) {
        for (base, count) in [
            slots.withUnsafeBytes { ($0.baseAddress, $0.count) }, tags.withUnsafeBytes { ($0.baseAddress, $0.count) },
        ] {
            guard let base else { continue }
            let end = UInt(bitPattern: base) + UInt(count)
            for region in stride(from: HugePages.region(of: UInt(bitPattern: base)), to: end, by: Int(HugePages.size)) {
                regions.insert(region)
            }
        }
    }

    /// Adds to `regions` the ``HugePages`` regions of the elements in the slots of `range` (clamped to
    /// ``capacity``): their addresses only, no element is read.
    func addElementRegions(ofSlots range: Range<Int>, into regions: inout Set<UInt>) {
        for index in range.clamped(to: 0..<slots.count) {
            guard let element = slots[index] else { continue }
            regions.insert(HugePages.region(of: UInt(bitPattern: Unmanaged.passUnretained(element).toOpaque())))
        }
    }

    /// Makes room for `count` elements in all, so that a bulk load does not rehash as it grows.
    mutating func reserveCapacity(_ count: Int) {
        var capacity = slots.count
        while count * 2 > capacity { capacity *= 2 }
        if capacity > slots.count { resize(to: capacity) }
    }

    /// Moves every element into `capacity` slots (a power of two; the load factor stays at most 1/2, so probe
    /// chains stay short).
    private mutating func resize(to capacity: Int) {
        let old = slots
        slots = ContiguousArray(repeating: nil, count: capacity)
        tags = ContiguousArray(repeating: 0, count: capacity)
        mask = capacity - 1
        for case let element? in old {
            let hash = element.withKey { Self.hash($0) }
            var index = hash & mask
            while tags[index] != 0 { index = (index + 1) & mask }
            slots[index] = element
            tags[index] = Self.tag(hash)
        }
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }
}
