import ReadCache

/// Full tiles and entry bundles made on demand (``LogFileIndex``), by path, bounded to `budget` bytes of bodies:
/// when a new one goes over, the least recently asked for go first. A value type kept under its owner's lock.
package struct LogTileCache {
    private struct Slot {
        let resource: CachedResource
        let bytes: Int
        var used: UInt64
    }

    package let budget: Int
    private var slots: [String: Slot] = [:]
    private var bytes = 0
    private var clock: UInt64 = 0

    package init(budget: Int) {
        self.budget = budget
    }

    /// The resource at `path`, if kept (and marks it used).
    package mutating func get(_ path: String) -> CachedResource? {
        guard slots[path] != nil else { return nil }
        clock += 1
        slots[path]!.used = clock
        return slots[path]!.resource
    }

    /// Keeps `resource` (of `bytes` body bytes) at `path`, unless it is kept already. Returns the resources dropped
    /// to stay within the budget, for the caller to release out of its lock. One larger than the whole budget is
    /// not kept.
    package mutating func put(_ path: String, _ resource: CachedResource, bytes size: Int) -> [CachedResource] {
        guard slots[path] == nil, size <= budget else { return [] }
        clock += 1
        slots[path] = Slot(resource: resource, bytes: size, used: clock)
        bytes += size
        var dropped: [CachedResource] = []
        while bytes > budget, let oldest = slots.min(by: { $0.value.used < $1.value.used }) {
            // Rare (a miss that overflows), and the cache holds at most a few thousand tiles.
            slots[oldest.key] = nil
            bytes -= oldest.value.bytes
            dropped.append(oldest.value.resource)
        }
        return dropped
    }

    /// How many tiles and bundles are kept.
    package var count: Int { slots.count }
}
