import Locking
import MicroHTTPD

/// The read path's view of every host's current document, with the `200` and `304` responses made from
/// bytes signed at write time.
///
/// A write or a re-sign replaces one host's resource after its transaction committed; a reader holds the lock
/// only for one hash-table lookup, so it sees the old document or the new one, never a mix, and never waits on
/// SQLite or signing.
///
/// Memory: each host costs one ``CachedResource`` (host, ETag and body in one allocation: the only copy of the
/// body) and a table slot. Its libmicrohttpd responses are built the first time the host is asked for (about
/// 1.3 KB for the `200` and 0.5 KB for the `304` in libmicrohttpd 0.9.75, which copies every header into its
/// own allocations) and then reused for every later request without allocating. Hosts nobody asks for never
/// pay for them, and start-up does not build 200,000 responses.
final class DocumentIndex: Sendable {
    private let table = Locked(ResourceTable())
    /// `public, max-age=N`, shared by every response.
    let cacheControl: String

    init(maxAge: Int) {
        cacheControl = "public, max-age=\(maxAge)"
    }

    /// The resource of one document, served as `application/json` with the refresh `max-age`.
    func resource(host: some Collection<UInt8>, etag: String, body: some Collection<UInt8>, version: Int)
        -> CachedResource
    {
        CachedResource(
            key: host, etag: etag, body: body, version: version, contentType: "application/json",
            cacheControl: cacheControl)
    }

    /// Replaces the resources of `documents`' hosts. An older version never replaces a newer one.
    func publish(_ documents: some Sequence<PublishedDocument>) {
        for document in documents {
            insert(
                resource(host: document.host.utf8, etag: document.etag, body: document.body, version: document.version))
        }
    }

    /// Loads every stored document (start-up), row by row straight from SQLite into resources. Returns the
    /// number of hosts served.
    func load(from store: PinDatabase) throws(ServiceError) -> Int {
        try store.read { db in
            try HostRecords.forEachDocument(db) { version, host, etag, body in
                insert(resource(host: host, etag: String(decoding: etag, as: UTF8.self), body: body, version: version))
            }
        }
        return count
    }

    /// Adds one resource (start-up load or a write), unless the host's resource has a higher version: a
    /// document never goes back to an older version. The one it replaces is returned out of the lock, so it is
    /// released (with its libmicrohttpd responses) after the lock, not while readers wait.
    func insert(_ resource: CachedResource) {
        _ = table.withLock { $0.insert(resource) { $0.version <= resource.version } }
    }

    /// The document of the host named by the rest of `request`'s path after `/pins/`. Allocates nothing.
    @inline(__always)
    func resource(forPathAfter prefix: StaticString, of request: HTTPRequest) -> CachedResource? {
        table.withLock { $0.find(pathAfter: prefix, of: request) }
    }

    /// The document of an already normalised host name.
    func resource(_ host: String) -> CachedResource? {
        table.withLock { $0.find(host) }
    }

    /// How many hosts are served.
    var count: Int { table.withLock { $0.count } }
}
