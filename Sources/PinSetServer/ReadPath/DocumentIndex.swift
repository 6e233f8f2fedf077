import Foundation
import Locking
import MicroHTTPD
import OpenSSLCrypto
import PinSetStorage
import ReadCache

/// The read path's view of every host's current document, with the `200` and `304` responses made from
/// bytes signed at write time.
///
/// A write or a re-sign replaces one host's document after its transaction committed; a reader holds the lock
/// only for one hash-table lookup, so it sees the old document or the new one, never a mix, and never waits on
/// SQLite or signing.
///
/// Memory: each host costs its host name, ETag and body in one allocation (the only copy of the body) and a
/// table slot. Its libmicrohttpd responses (about 0.6 KB for the `200` and 0.5 KB for the `304` in
/// libmicrohttpd 0.9.75, which copies every header into its own allocations) are built on the host's first
/// request and kept for at most `responseCapacity` hosts, those asked for again and again (``ResourceIndex``):
/// the hosts clients keep asking for are answered without allocating, and a million stored hosts do not cost
/// a million pairs of responses.
final class DocumentIndex: Sendable {
    private let documents: ResourceIndex
    /// Hosts whose stored document failed its hash check at load (served `503` with `--serve-damaged`) and have
    /// not been written since.
    private let damagedHosts = Locked<Set<String>>([])
    /// `public, max-age=N`, shared by every response.
    let cacheControl: String

    /// The default ``responseCapacity``: every host's responses stay built up to 100,000 hosts (about 110 MB
    /// once all were asked for), and a million hosts stay within 1 KB per host (BENCHMARKS.md, response cache).
    static let defaultResponseCapacity = 100_000

    /// An empty index whose documents say `max-age=maxAge`, keeping the responses of at most `responseCapacity`
    /// hosts built.
    init(maxAge: Int, responseCapacity: Int = defaultResponseCapacity) {
        cacheControl = "public, max-age=\(maxAge)"
        documents = ResourceIndex(
            contentType: "application/json", cacheControl: cacheControl, responseCapacity: responseCapacity)
    }

    /// Replaces the documents of `published`' hosts. An older version never replaces a newer one.
    func publish(_ published: some Sequence<PublishedDocument>) {
        for document in published {
            damagedHosts.withLock { damaged in if !damaged.isEmpty { damaged.remove(document.host) } }
            documents.insert(
                key: document.host.utf8, etag: document.etag.utf8, body: document.body, version: document.version)
        }
    }

    /// What the start-up load found.
    struct Loaded {
        /// Hosts served.
        var hosts: Int
        /// Hosts whose stored document does not match its stored ETag's hash, by name: not served.
        var damaged: [String]
        /// Milliseconds of CPU spent checking the documents' hashes (on the storing thread, beside the reading).
        var checkMilliseconds = 0
        /// CPU seconds of the thread that checked and stored the documents (the reading thread's are the caller's).
        var storeCPUSeconds: Double = 0
        /// The largest `issuedAt` of the stored documents, damaged ones included (`nil` without documents).
        var newestIssuedAt: Date?
    }

    /// How many documents the reading thread copies before handing them to the storing thread.
    private static let batchSize = 4_096

    /// Loads every stored document (start-up), row by row straight from SQLite, checking each one's bytes
    /// against the hash its ETag holds (``StoredDocumentCheck``): a damaged document is not loaded, and its host
    /// is listed in ``Loaded/damaged`` (and answered `503` by ``isDamaged(_:)`` until it is written again).
    ///
    /// Two threads share the work: the calling thread reads the rows and copies each document once, into the
    /// allocation the index keeps; a thread of its own checks each batch's hashes and stores it
    /// (``ResourceBatch/keep(where:)``, ``ResourceIndex/insert(_:)``). Where a second core is free the load then costs about what
    /// SQLite's reading costs.
    ///
    /// `checkingHashes` false (default true) skips the hash check: for measuring what it costs only
    /// (``QuickCheck/measurementOnlyChecksOff``).
    func load(from store: PinDatabase, checkingHashes: Bool = true) throws(ServiceError) -> Loaded {
        let handoff = BatchHandoff<ResourceBatch>(limit: 8)
        let stored = StoreThread(documents: documents, handoff: handoff, checkingHashes: checkingHashes)
        let newest: Date?
        do throws(ServiceError) {
            newest = try store.read { db in
                documents.reserveCapacity(try HostRecords.documentCount(db))
                var batch = ResourceBatch(capacity: Self.batchSize)
                let newest = try HostRecords.forEachDocument(db) { version, host, etag, body in
                    batch.append(key: host, etag: etag, body: body, version: version)
                    if batch.count == Self.batchSize {
                        handoff.put(batch)
                        batch = ResourceBatch(capacity: Self.batchSize)
                    }
                }
                handoff.put(batch)
                return newest
            }
        } catch {
            handoff.finish()
            _ = stored.wait()
            throw error
        }
        handoff.finish()
        var loaded = stored.wait()
        loaded.hosts = count
        loaded.newestIssuedAt = newest
        loaded.damaged.sort()
        damagedHosts.withLock { $0 = Set(loaded.damaged) }
        return loaded
    }

    /// The storing half of ``load(from:)``: a thread that checks and stores each batch handed over until the
    /// handoff finishes.
    private final class StoreThread: Sendable {
        private let result = Locked(Loaded(hosts: 0, damaged: []))
        private let done = DispatchSemaphore(value: 0)

        init(documents: ResourceIndex, handoff: BatchHandoff<ResourceBatch>, checkingHashes: Bool) {
            let thread = Thread { [result, done] in
                let startedCPU = QuickCheck.threadCPUSeconds()
                // The check's cost in this thread's CPU time, per batch: wall-clock times stretch on a busy machine.
                var checking: Double = 0
                var damaged: [String] = []
                while var batch = handoff.take() {
                    guard checkingHashes else {
                        documents.insert(batch)
                        continue
                    }
                    let before = QuickCheck.threadCPUSeconds()
                    damaged += batch.keep { etag, body in StoredDocumentCheck.matches(body: body, etag: etag) }
                    checking += QuickCheck.threadCPUSeconds() - before
                    documents.insert(batch)
                }
                let cpu = QuickCheck.threadCPUSeconds() - startedCPU
                result.withLock {
                    $0 = Loaded(
                        hosts: 0, damaged: damaged, checkMilliseconds: Int(checking * 1000), storeCPUSeconds: cpu)
                }
                done.signal()
            }
            thread.name = "pinset.load-store"
            thread.start()
        }

        /// Blocks until every batch is stored: what the thread found.
        func wait() -> Loaded {
            done.wait()
            return result.withLock { $0 }
        }
    }

    /// Whether `host`'s stored document was found damaged at start-up and not written since.
    func isDamaged(_ host: String) -> Bool { damagedHosts.withLock { $0.contains(host) } }

    /// How many hosts are damaged and not written since.
    var damagedCount: Int { damagedHosts.withLock { $0.count } }

    /// Moves the loaded documents and the host table onto 2 MiB pages where Linux allows it
    /// (``ResourceIndex/adviseHugePages()``): at a million hosts a random host's lookup then misses the CPU's
    /// caches but hardly ever its TLB. Blocking and slow (about 3 s of CPU per GB): start-up runs it once, on a
    /// thread of its own, after ``load(from:)``.
    func adviseHugePages() -> (regions: Int, collapsed: Int) { documents.adviseHugePages() }

    /// The answer to a `GET`/`HEAD` of the host named by the rest of `request`'s path after `prefix`: `304`
    /// when `If-None-Match` names its ETag, else `200`; `nil` for a host not served (or not in normal form).
    /// Allocates nothing when the host's answer is kept built.
    @inline(__always)
    func response(forPathAfter prefix: StaticString, of request: HTTPRequest) -> PreparedResponse? {
        documents.response(pathAfter: prefix, of: request)
    }

    /// The answer to `request` for an already normalised host name, `nil` when the host is not served.
    func response(_ host: String, to request: HTTPRequest) -> PreparedResponse? {
        documents.response(key: host, to: request)
    }

    /// Whether a document is served for an already normalised host name.
    func contains(_ host: String) -> Bool { documents.contains(host) }

    /// One host's served document: version, ETag and body, copied (slow paths and tests).
    func document(_ host: String) -> (version: Int, etag: String, body: [UInt8])? { documents.resource(host) }

    /// One host's served document as a stand-alone ``CachedResource`` (a copy, for slow paths: the transparency
    /// log builds a host's proof from the bytes served when the proof is first asked for); `nil` when the host is
    /// not served.
    func resource(_ host: String) -> CachedResource? {
        document(host).map {
            CachedResource(
                key: host.utf8, etag: $0.etag, body: $0.body, version: $0.version, contentType: "application/json",
                cacheControl: cacheControl)
        }
    }

    /// How many hosts are served.
    var count: Int { documents.count }

    /// How many hosts have their responses built (at most the response capacity).
    var builtCount: Int { documents.builtCount }
}
