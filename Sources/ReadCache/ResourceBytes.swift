internal import CPrefetch

/// One resource's key, ETag and body in a single allocation, back to back after a small header. Immutable
/// once made, except the slot of its built responses in a ``ResourceIndex`` (read and written only under that
/// index's lock).
///
/// The body is the only copy the server keeps: responses are built over it without copying (see
/// ``CachedResource`` and ``ResourceIndex``), and libmicrohttpd retains the object while it sends them.
///
/// Not `Sendable` (`ManagedBuffer` cannot be), but safe to share: nothing writes to the bytes after ``make``.
final class ResourceBytes: ManagedBuffer<ResourceBytes.Layout, UInt8> {
    struct Layout {
        /// The byte counts of the key, the ETag and the body, stored in that order.
        let keyCount: UInt16
        let etagCount: UInt16
        let bodyCount: Int32
        /// Where a ``ResourceIndex`` keeps this resource's built responses: an index into its
        /// ``ResponseClock``, ``ResourceBytes/notCached`` or ``ResourceBytes/retired``. Guarded by the index's lock.
        var cacheSlot: Int32
        /// When and how often in a row the ``ResponseClock`` turned away this resource's responses (its admission
        /// window and a count, see `ResponseClock.admits`; `0`: never). Guarded by the index's lock.
        var turnedAway: UInt32
        /// The application's version of the resource (``ResourceIndex/insert(key:etag:body:version:)``).
        let version: Int
    }

    /// ``Layout/cacheSlot`` of a resource whose responses are not built (or were evicted).
    static let notCached: Int32 = -1
    /// ``Layout/cacheSlot`` of a resource that was replaced: its responses are never cached again.
    static let retired: Int32 = -2

    /// Copies the three byte ranges into one new object (the ETag followed by a NUL, for libmicrohttpd).
    static func make(
        key: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, version: Int = 0
    ) -> ResourceBytes {
        precondition(key.count <= Int(UInt16.max) && etag.count <= Int(UInt16.max) && body.count <= Int(Int32.max))
        let layout = Layout(
            keyCount: UInt16(key.count), etagCount: UInt16(etag.count), bodyCount: Int32(body.count),
            cacheSlot: notCached, turnedAway: 0, version: version)
        let buffer = create(minimumCapacity: key.count + etag.count + 1 + body.count) { _ in layout }
        buffer.withUnsafeMutablePointerToElements { start in
            let at = UnsafeMutableRawPointer(start)
            UnsafeMutableRawBufferPointer(start: at, count: key.count).copyMemory(from: key)
            UnsafeMutableRawBufferPointer(start: at + key.count, count: etag.count).copyMemory(from: etag)
            at.storeBytes(of: 0, toByteOffset: key.count + etag.count, as: UInt8.self)
            UnsafeMutableRawBufferPointer(start: at + key.count + etag.count + 1, count: body.count)
                .copyMemory(from: body)
        }
        return unsafeDowncast(buffer, to: ResourceBytes.self)
    }

    /// Copies any three byte collections (contiguous ones without an intermediate array).
    static func make(
        key: some Collection<UInt8>, etag: some Collection<UInt8>, body: some Collection<UInt8>, version: Int = 0
    ) -> ResourceBytes {
        withBytes(key) { key in
            withBytes(etag) { etag in
                withBytes(body) { body in make(key: key, etag: etag, body: body, version: version) }
            }
        }
    }

    private static func withBytes<R>(_ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes(body)
    }

    /// The version given to ``make(key:etag:body:version:)``.
    var version: Int { withUnsafeMutablePointerToHeader { $0.pointee.version } }

    /// The slot of the built responses in the owning ``ResourceIndex``'s cache. Only under that index's lock.
    var cacheSlot: Int32 {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.cacheSlot } }
        @inline(__always) set { withUnsafeMutablePointerToHeader { $0.pointee.cacheSlot = newValue } }
    }

    /// See ``Layout/turnedAway``. Only under the owning ``ResourceIndex``'s lock.
    var turnedAway: UInt32 {
        get { withUnsafeMutablePointerToHeader { $0.pointee.turnedAway } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.turnedAway = newValue } }
    }

    /// Asks the CPU to start loading the whole object (header, key, ETag and body) into its caches, without
    /// waiting: a document among a million is cold, and its lines then arrive together instead of one miss at a
    /// time (the ETag while the answer is chosen, the body while libmicrohttpd writes the headers).
    @inline(__always)
    func prefetch() {
        withUnsafeMutablePointers { layout, start in
            let header = layout.pointee
            cprefetch(start, Int(header.keyCount) + Int(header.etagCount) + 1 + Int(header.bodyCount))
        }
    }

    /// Calls `body` with the key's bytes (no allocation).
    @inline(__always)
    func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(UnsafeRawBufferPointer(start: start, count: Int(layout.pointee.keyCount)))
        }
    }

    /// Calls `body` with the ETag's bytes, quotes included (no allocation).
    @inline(__always)
    func withETag<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(
                UnsafeRawBufferPointer(
                    start: start + Int(layout.pointee.keyCount), count: Int(layout.pointee.etagCount)))
        }
    }

    /// Calls `body` with the ETag as a NUL-terminated C string (no allocation).
    func withETagCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(UnsafeRawPointer(start + Int(layout.pointee.keyCount)).assumingMemoryBound(to: CChar.self))
        }
    }

    /// Calls `body` with the body's bytes. They stay valid, unchanged, for as long as the object lives.
    func withBody<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(
                UnsafeRawBufferPointer(
                    start: start + Int(layout.pointee.keyCount) + Int(layout.pointee.etagCount) + 1,
                    count: Int(layout.pointee.bodyCount)))
        }
    }
}

extension ResourceBytes: KeyedByBytes {}
