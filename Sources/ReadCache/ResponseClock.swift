import MicroHTTPD

/// The built `200` and `304` responses of at most ``capacity`` resources, evicted by the CLOCK algorithm (a
/// second-chance approximation of least-recently-used): a hit only sets its entry's reference bit; a miss that
/// needs a slot sweeps the hand, clearing bits, to the first entry not used since the last sweep.
///
/// Once the cache is full, a resource is let in (evicting another) only when it was turned away
/// ``turnAwaysBeforeAdmission`` times already within the last two windows of `capacity` misses; until then its
/// answer is built for the one request and freed after it. Evicting costs far more than building: the evicted
/// responses' dozen allocations are cold in memory (at a million hosts, random requests through a full cache spent
/// more CPU than with no cache at all), while a response built and freed within one request stays in the CPU's
/// cache. Hosts asked for again and again soon get in; a scan or uniformly random requests over many more hosts
/// than `capacity` hardly churn the cache (with one earlier turn-away required, uniformly random requests over ten
/// times `capacity` hosts evict on about 11% of requests; with two, on about 1.6%, for the same 10% of hits).
///
/// Each entry's resource knows its slot (``ResourceBytes/cacheSlot``), so a hit costs no search. Not
/// thread-safe: ``ResourceIndex`` calls it under its lock, and releases whatever it hands back (evicted
/// responses) after unlocking, so that libmicrohttpd's frees never run while readers wait.
struct ResponseClock {
    /// One resource's built responses.
    struct Entry {
        /// The resource, `nil` for a free slot.
        var owner: ResourceBytes?
        var ok: PreparedResponse?
        var notModified: PreparedResponse?
        /// Served since the hand last passed.
        var referenced = false
    }

    /// The most resources whose responses are kept; `0` keeps none (every answer is built for its request).
    let capacity: Int
    private var entries: ContiguousArray<Entry> = []
    private var hand = 0
    /// How many slots hold a resource's responses.
    private(set) var count = 0
    /// Misses while full: the admission windows are `capacity` of them each.
    private var fullMisses = 0
    /// How many times a full cache turns a resource away, within two admission windows, before letting it in.
    static let turnAwaysBeforeAdmission: UInt32 = 2

    /// An empty cache for at most `capacity` resources (slots are allocated as they fill).
    init(capacity: Int) {
        precondition(capacity >= 0 && capacity < Int(Int32.max), "response cache capacity \(capacity)")
        self.capacity = capacity
    }

    /// `resource`'s built `304` (when `notModified`) or `200`, marked as used; `nil` when it is not built.
    @inline(__always)
    mutating func response(of resource: ResourceBytes, notModified: Bool) -> PreparedResponse? {
        let slot = Int(resource.cacheSlot)
        guard slot >= 0 else { return nil }
        let found = notModified ? entries[slot].notModified : entries[slot].ok
        if found != nil { entries[slot].referenced = true }
        return found
    }

    /// Keeps `built` as `resource`'s `304` (when `notModified`) or `200`, evicting the least recently used
    /// resource's responses when the cache is full and `resource` was turned away recently (see the type's
    /// notes), else turning it away. Returns the response to send (one another thread stored
    /// first wins, so every request for a resource gets the same one) and what was pushed out, for the caller to
    /// release after unlocking.
    mutating func store(_ built: PreparedResponse, of resource: ResourceBytes, notModified: Bool)
        -> (serve: PreparedResponse, released: Entry?)
    {
        var slot = Int(resource.cacheSlot)
        if slot == Int(ResourceBytes.retired) || capacity == 0 { return (built, nil) }
        var released: Entry?
        if slot < 0 {
            if entries.count == capacity && count == capacity && !admits(resource) { return (built, nil) }
            (slot, released) = freeSlot()
            entries[slot].owner = resource
            resource.cacheSlot = Int32(slot)
            count += 1
        }
        if notModified {
            if let existing = entries[slot].notModified { return (existing, released) }
            entries[slot].notModified = built
        } else {
            if let existing = entries[slot].ok { return (existing, released) }
            entries[slot].ok = built
        }
        return (built, released)
    }

    /// Whether a full cache lets `resource` in: it was turned away ``turnAwaysBeforeAdmission`` times in this
    /// admission window and the one before. Otherwise it is turned away now, and that is counted in
    /// ``ResourceBytes/turnedAway``: the window of the latest turn-away (plus one, modulo 2^30) in the upper 30
    /// bits, how many turn-aways in a row in the lower 2 (never 0 once turned away).
    private mutating func admits(_ resource: ResourceBytes) -> Bool {
        fullMisses += 1
        let window = (UInt32(truncatingIfNeeded: fullMisses / capacity) &+ 1) & Self.windowMask
        let last = resource.turnedAway
        let recent = last != 0 && (window &- (last >> 2)) & Self.windowMask <= 1
        let times = recent ? last & 3 : 0
        if times >= Self.turnAwaysBeforeAdmission { return true }
        resource.turnedAway = window << 2 | (times + 1)
        return false
    }

    /// The admission window's number is kept in 30 bits.
    private static let windowMask: UInt32 = 1 << 30 - 1

    /// Drops `resource`'s responses for good (it was replaced) and marks it so none are stored for it again.
    /// Returns them, for the caller to release after unlocking.
    mutating func retire(_ resource: ResourceBytes) -> Entry? {
        let slot = Int(resource.cacheSlot)
        resource.cacheSlot = ResourceBytes.retired
        guard slot >= 0 else { return nil }
        count -= 1
        return clear(slot)
    }

    /// A slot for a new entry: a fresh one while the cache is not full, else the first one the hand finds free
    /// or unused since its last pass (at most one full sweep plus one step: by then every bit is cleared).
    private mutating func freeSlot() -> (Int, Entry?) {
        if entries.count < capacity {
            entries.append(Entry())
            return (entries.count - 1, nil)
        }
        while entries[hand].owner != nil && entries[hand].referenced {
            entries[hand].referenced = false
            hand = hand + 1 == capacity ? 0 : hand + 1
        }
        let slot = hand
        hand = hand + 1 == capacity ? 0 : hand + 1
        guard let owner = entries[slot].owner else { return (slot, nil) }
        owner.cacheSlot = ResourceBytes.notCached
        count -= 1
        return (slot, clear(slot))
    }

    private mutating func clear(_ slot: Int) -> Entry {
        defer { entries[slot] = Entry() }
        return entries[slot]
    }
}
