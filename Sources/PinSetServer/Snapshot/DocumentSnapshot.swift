import MicroHTTPD
import Synchronization

/// The read path's view of every host's current document: pre-built `200` and `304` responses made from
/// bytes signed at write time.
///
/// A write or a re-sign replaces one host's entry after its transaction committed; a reader holds the lock
/// only for one dictionary lookup, so it sees the old entry or the new one, never a mix, and never waits on
/// SQLite or signing.
final class DocumentSnapshot: Sendable {
    /// One host's served document.
    final class Entry: Sendable {
        let version: Int
        let etag: [UInt8]
        let ok: PreparedResponse
        let notModified: PreparedResponse

        init(_ document: PublishedDocument, maxAge: Int) {
            version = document.version
            etag = Array(document.etag.utf8)
            let common = [("ETag", document.etag), ("Cache-Control", "public, max-age=\(maxAge)")]
            ok = PreparedResponse(
                status: 200, headers: [("Content-Type", "application/json")] + common, body: document.body)
            notModified = PreparedResponse(status: 304, headers: common, body: [])
        }
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let maxAge: Int

    init(maxAge: Int) {
        self.maxAge = maxAge
    }

    /// Replaces the entries of `documents`' hosts. An older version never replaces a newer one.
    func publish(_ documents: some Sequence<PublishedDocument>) {
        let built = documents.map { ($0.host, Entry($0, maxAge: maxAge)) }
        entries.withLock { entries in
            entries.reserveCapacity(entries.count + built.count)
            for (host, entry) in built {
                if let current = entries[host], current.version > entry.version { continue }
                entries[host] = entry
            }
        }
    }

    /// The entry of an already normalised host name.
    func entry(_ host: String) -> Entry? {
        entries.withLock { $0[host] }
    }

    /// How many hosts are served.
    var count: Int { entries.withLock { $0.count } }
}
