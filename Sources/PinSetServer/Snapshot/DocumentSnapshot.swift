import MicroHTTPD
import Locking
import Synchronization

/// The read path's view of every host's current document, with the `200` and `304` responses made from
/// bytes signed at write time.
///
/// A write or a re-sign replaces one host's entry after its transaction committed; a reader holds the lock
/// only for one hash-table lookup, so it sees the old entry or the new one, never a mix, and never waits on
/// SQLite or signing.
///
/// Memory: each host costs one ``StoredDocument`` (host, ETag and body in one allocation: the only copy of
/// the body), one small ``Entry`` and a table slot. Its libmicrohttpd responses are built the first time the
/// host is asked for (about 1.3 KB for the `200` and 0.5 KB for the `304` in libmicrohttpd 0.9.75, which
/// copies every header into its own allocations) and then reused for every later request without allocating.
/// Hosts nobody asks for never pay for them, and start-up does not build 200,000 responses.
final class DocumentSnapshot: Sendable {
    /// One host's served document and the responses built from it on first use.
    ///
    /// The responses are written once (compare-and-exchange) and released with the entry: no cycle, since
    /// a response retains only the ``StoredDocument`` it sends from, never the entry. `@unchecked`: the
    /// document is immutable once made (``StoredDocument``) and the two slots are atomics.
    final class Entry: @unchecked Sendable {
        let document: StoredDocument
        private let ok = Atomic<Unmanaged<PreparedResponse>?>(nil)
        private let notModified = Atomic<Unmanaged<PreparedResponse>?>(nil)

        init(_ document: StoredDocument) {
            self.document = document
        }

        deinit {
            ok.load(ordering: .acquiring)?.release()
            notModified.load(ordering: .acquiring)?.release()
        }

        /// The `200` response: `Content-Type`, `ETag`, `Cache-Control` and the stored body, not copied.
        @inline(__always)
        func okResponse(cacheControl: String) -> PreparedResponse {
            Self.cached(ok) {
                document.withBody { body in
                    PreparedResponse(
                        status: 200,
                        headers: [
                            ("Content-Type", "application/json"), ("ETag", document.etag),
                            ("Cache-Control", cacheControl),
                        ], body: body, owner: document)
                }
            }
        }

        /// The `304` response: `ETag` and `Cache-Control`, no body, and the `200`'s `Content-Length` (RFC 9110
        /// §8.6 allows no other).
        @inline(__always)
        func notModifiedResponse(cacheControl: String) -> PreparedResponse {
            Self.cached(notModified) {
                document.withBody { body in
                    PreparedResponse.notModified(
                        headers: [("ETag", document.etag), ("Cache-Control", cacheControl)], representation: body,
                        owner: document)
                }
            }
        }

        /// The response in `slot`, built by `build` and stored there the first time (the first writer wins;
        /// a thread that lost the race frees its own copy).
        @inline(__always)
        private static func cached(
            _ slot: borrowing Atomic<Unmanaged<PreparedResponse>?>, _ build: () -> PreparedResponse
        ) -> PreparedResponse {
            if let existing = slot.load(ordering: .acquiring) { return existing.takeUnretainedValue() }
            return buildOnce(slot, build)
        }

        @inline(never)
        private static func buildOnce(
            _ slot: borrowing Atomic<Unmanaged<PreparedResponse>?>, _ build: () -> PreparedResponse
        ) -> PreparedResponse {
            let built = Unmanaged.passRetained(build())
            let (stored, current) = slot.compareExchange(
                expected: nil, desired: built, ordering: .acquiringAndReleasing)
            if stored { return built.takeUnretainedValue() }
            built.release()
            return current!.takeUnretainedValue()
        }
    }

    private let index = Locked(HostIndex())
    /// `public, max-age=N`, shared by every response.
    let cacheControl: String

    init(maxAge: Int) {
        cacheControl = "public, max-age=\(maxAge)"
    }

    /// Replaces the entries of `documents`' hosts. An older version never replaces a newer one.
    func publish(_ documents: some Sequence<PublishedDocument>) {
        for document in documents {
            let stored = document.body.withUnsafeBytes { body in
                var host = document.host
                var etag = document.etag
                return host.withUTF8 { host in
                    etag.withUTF8 { etag in
                        StoredDocument.make(
                            version: document.version, host: UnsafeRawBufferPointer(host),
                            etag: UnsafeRawBufferPointer(etag), body: body)
                    }
                }
            }
            insert(Entry(stored))
        }
    }

    /// Loads every stored document (start-up), row by row straight from SQLite into entries. Returns the
    /// number of hosts served.
    func load(from store: PinStore) throws(ServiceError) -> Int {
        try store.read { db in
            try HostTable.forEachDocument(db) { version, host, etag, body in
                insert(Entry(StoredDocument.make(version: version, host: host, etag: etag, body: body)))
            }
        }
        return count
    }

    /// Adds one entry (start-up load or a write). The entry it replaces is returned out of the lock, so it is
    /// released (with its libmicrohttpd responses) after the lock, not while readers wait.
    func insert(_ entry: Entry) {
        _ = index.withLock { index in
            index.insert(entry) { current in current.document.version <= entry.document.version }
        }
    }

    /// The entry of an already normalised host name, given as its bytes. Allocates nothing.
    @inline(__always)
    func entry(_ host: UnsafeRawBufferPointer) -> Entry? {
        index.withLock { $0.find(host) }
    }

    /// The entry of an already normalised host name.
    func entry(_ host: String) -> Entry? {
        var host = host
        return host.withUTF8 { entry(UnsafeRawBufferPointer($0)) }
    }

    /// How many hosts are served.
    var count: Int { index.withLock { $0.count } }
}
