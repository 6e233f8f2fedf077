#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open-addressing hash table of entries keyed by their host's bytes, looked up with raw bytes.
///
/// A `[String: Entry]` made a heap `String` per host (names over 15 bytes are not stored inline) and made the
/// read path build a `String` from the URL, which allocates for those same names. Here the key is the host
/// already stored in the entry's ``StoredDocument``, and a lookup hashes the URL bytes in place (seeded
/// SipHash through `Hasher`, as `Dictionary` does). Entries are only added or replaced, never removed
/// (retiring a host publishes a new document), so linear probing needs no tombstones. Not thread-safe:
/// ``DocumentSnapshot`` guards it.
struct HostIndex {
    private var slots: ContiguousArray<DocumentSnapshot.Entry?>
    /// `slots.count - 1`; the capacity is a power of two.
    private var mask: Int
    /// How many entries are stored.
    private(set) var count = 0

    init() {
        slots = ContiguousArray(repeating: nil, count: 16)
        mask = 15
    }

    @inline(__always)
    static func hash(_ host: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: host)
        return hasher.finalize()
    }

    /// The entry whose host is exactly `host`, or `nil`.
    @inline(__always)
    func find(_ host: UnsafeRawBufferPointer) -> DocumentSnapshot.Entry? {
        var index = Self.hash(host) & mask
        while let entry = slots[index] {
            if entry.document.withHost({ Self.equal($0, host) }) { return entry }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Stores `entry` under its host. An entry already there is replaced only if `replaces(current)` is true.
    /// Returns the entry left out (the replaced one or `entry` itself), so the caller can release it later.
    mutating func insert(
        _ entry: DocumentSnapshot.Entry, replaces: (DocumentSnapshot.Entry) -> Bool
    ) -> DocumentSnapshot.Entry? {
        if (count + 1) * 2 > slots.count { grow() }
        return entry.document.withHost { host in
            var index = Self.hash(host) & mask
            while let current = slots[index] {
                if current.document.withHost({ Self.equal($0, host) }) {
                    guard replaces(current) else { return entry }
                    slots[index] = entry
                    return current
                }
                index = (index + 1) & mask
            }
            slots[index] = entry
            count += 1
            return nil
        }
    }

    /// Doubles the capacity (load factor stays at most 1/2, so probe chains stay short).
    private mutating func grow() {
        let old = slots
        slots = ContiguousArray(repeating: nil, count: old.count * 2)
        mask = slots.count - 1
        for case let entry? in old {
            var index = entry.document.withHost(Self.hash) & mask
            while slots[index] != nil { index = (index + 1) & mask }
            slots[index] = entry
        }
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }
}
