/// One host's served document in a single allocation: the host name, the ETag and the body, back to back
/// after a small header. Immutable once made.
///
/// The body is the only copy the server keeps: responses are built over it without copying (see
/// ``DocumentSnapshot/Entry``), and libmicrohttpd retains the object while it sends them.
///
/// Not `Sendable` (`ManagedBuffer` cannot be), but safe to share: nothing writes to it after ``make``.
final class StoredDocument: ManagedBuffer<StoredDocument.Layout, UInt8> {
    struct Layout {
        /// The pin set version inside the document.
        let version: Int
        /// The byte counts of the host, the ETag and the body, stored in that order.
        let hostCount: Int32
        let etagCount: Int32
        let bodyCount: Int
    }

    /// Copies the three byte ranges into one new object.
    static func make(
        version: Int, host: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer
    ) -> StoredDocument {
        precondition(host.count <= Int(Int32.max) && etag.count <= Int(Int32.max))
        let layout = Layout(
            version: version, hostCount: Int32(host.count), etagCount: Int32(etag.count), bodyCount: body.count)
        let buffer = create(minimumCapacity: host.count + etag.count + body.count) { _ in layout }
        buffer.withUnsafeMutablePointerToElements { start in
            let at = UnsafeMutableRawPointer(start)
            UnsafeMutableRawBufferPointer(start: at, count: host.count).copyMemory(from: host)
            UnsafeMutableRawBufferPointer(start: at + host.count, count: etag.count).copyMemory(from: etag)
            UnsafeMutableRawBufferPointer(start: at + host.count + etag.count, count: body.count)
                .copyMemory(from: body)
        }
        return unsafeDowncast(buffer, to: StoredDocument.self)
    }

    var version: Int { header.version }

    /// Calls `body` with the host name's bytes (no allocation).
    @inline(__always)
    func withHost<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(UnsafeRawBufferPointer(start: start, count: Int(layout.pointee.hostCount)))
        }
    }

    /// Calls `body` with the ETag's bytes, quotes included (no allocation).
    @inline(__always)
    func withETag<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(
                UnsafeRawBufferPointer(
                    start: start + Int(layout.pointee.hostCount), count: Int(layout.pointee.etagCount)))
        }
    }

    /// Calls `body` with the body's bytes. They stay valid, unchanged, for as long as the object lives.
    func withBody<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { layout, start in
            try body(
                UnsafeRawBufferPointer(
                    start: start + Int(layout.pointee.hostCount) + Int(layout.pointee.etagCount),
                    count: layout.pointee.bodyCount))
        }
    }

    /// The ETag as text (slow paths only).
    var etag: String { withETag { String(decoding: $0, as: UTF8.self) } }
}
