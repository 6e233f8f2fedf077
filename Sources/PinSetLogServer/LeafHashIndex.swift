/// Log entries by leaf hash: which entry holds given bytes. ``LogState`` keeps one of the entries stored at start-up,
/// so the proof of a document served since then is found from the document alone, when it is first asked for
/// (``ProofIndex``), instead of a proof or a record per host built before the first request.
///
/// 16 bytes an entry and no allocation per entry: the first 8 bytes of each leaf hash with the entry's index,
/// sorted. Several entries may share a prefix; the caller checks the whole hash (``candidates(_:)``).
package struct LeafHashIndex: Sendable {
    private struct Slot: Sendable {
        let prefix: UInt64
        let index: UInt32
    }

    private var slots: [Slot] = []

    /// None.
    package init() {}

    /// The entries `0..<count`, whose leaf hashes begin with `prefix(i)`.
    /// - Precondition: `count` fits 32 bits (4 billion entries).
    package init(count: Int, prefix: (Int) -> UInt64) {
        precondition(count <= Int(UInt32.max), "too many log entries to index")
        slots = [Slot](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count { (buffer.baseAddress! + i).initialize(to: Slot(prefix: prefix(i), index: UInt32(i))) }
            initialized = count
        }
        slots.sort { ($0.prefix, $0.index) < ($1.prefix, $1.index) }
    }

    /// The first 8 bytes of `leafHash`, big-endian: the key of an entry.
    package static func prefix(_ leafHash: some Collection<UInt8>) -> UInt64 {
        leafHash.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The indices of the entries whose leaf hashes begin like `leafHash`, in index order.
    package func candidates(_ leafHash: some Collection<UInt8>) -> [Int] {
        let key = Self.prefix(leafHash)
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].prefix < key { low = middle + 1 } else { high = middle }
        }
        var found: [Int] = []
        while low < slots.count, slots[low].prefix == key {
            found.append(Int(slots[low].index))
            low += 1
        }
        return found
    }

    /// How many entries are indexed.
    package var count: Int { slots.count }
}
