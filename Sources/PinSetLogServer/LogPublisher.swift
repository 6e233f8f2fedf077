import Dispatch
import Foundation
package import GRDB
import Locking
import Logging
import PinSetCore
import PinSetStorage
import ReadCache
import TransparencyLog

/// Puts logged documents on the read path once a signed checkpoint includes them (PROTOCOL §7.3), on one thread
/// of its own (never Swift's cooperative pool, never the GET path).
///
/// Group commit: a write appends its documents to the log in its own transaction and, still in the serialized
/// writer section after COMMIT, hands them over (``committed(_:)``); it then leaves the writer section and waits
/// on its ``Ticket``. The publisher takes everything handed over so far, signs ONE checkpoint covering it (a
/// burst of writes costs one signature; a lone write is not delayed, the next checkpoint is signed as soon as the
/// previous one is done), stores it, publishes the new tiles, then each document's proof and the document
/// itself in commit order, and only then wakes the waiting writes.
package final class LogPublisher: Sendable {
    /// A logged document waiting for its checkpoint.
    package struct Pending: Sendable {
        package let key: ProofKey
        package let leafIndex: Int
        package let etag: String
        /// Puts the document itself on the read path (after its proof).
        package let publish: @Sendable () -> Void

        /// Creates an entry waiting for its proof (the memberwise initializer, for the server's writes).
        package init(key: ProofKey, leafIndex: Int, etag: String, publish: @escaping @Sendable () -> Void) {
            self.key = key
            self.leafIndex = leafIndex
            self.etag = etag
            self.publish = publish
        }
    }

    /// What a write waits on: its documents are served, with proofs.
    package final class Ticket: Sendable {
        private let done = DispatchSemaphore(value: 0)

        package func signal() { done.signal() }

        /// Waits at most `seconds`; `false` on timeout.
        package func wait(seconds: TimeInterval) -> Bool { done.wait(timeout: .now() + seconds) == .success }
    }

    private struct Queue {
        var pending: [Pending] = []
        var tickets: [Ticket] = []
        var cosigned = false
        var stopped = false
        /// When the oldest document handed over and not yet published was handed over (monotonic seconds).
        var waitingSince: Double?
        /// Why the last checkpoint could not be signed, until one is.
        var lastFailure: String?
    }

    /// Seconds a handed-over document may wait for its checkpoint before the publisher counts as behind
    /// (``behind()``). A checkpoint normally takes milliseconds.
    package static let readinessLag: Double = 5

    package let log: LogState
    package let proofs: ProofIndex
    package let files: LogFileIndex
    package let store: PinDatabase
    /// The forks of this log found so far (PROTOCOL §7.2).
    package let forks: LogForks
    private let witnessCount: Int
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let queue = Locked(Queue())
    private let work = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Called after each new checkpoint is published (the witness round starts).
    private let afterCheckpoint: Locked<(@Sendable () -> Void)?> = Locked(nil)

    /// - Parameter documents: the document served for a host (the read path's), whose proof is built from its
    ///   bytes when first asked for if it was served since start-up.
    package init(
        log: LogState, store: PinDatabase, witnessCount: Int, maxAge: Int, crypto: any TrustCrypto,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "pinset"),
        documents: @escaping @Sendable (_ host: String) -> CachedResource?
    ) {
        self.log = log
        self.store = store
        self.witnessCount = witnessCount
        self.clock = clock
        self.logger = logger
        forks = LogForks(log: log, store: store, crypto: crypto, logger: logger)
        proofs = ProofIndex(maxAge: maxAge) { [log] host in
            // The entry holding the exact bytes served: any one proves them (PROTOCOL §7.4 checks the bytes).
            guard let document = documents(host),
                let index = log.storedIndex(of: log.leafHash(document.body)),
                let proof = try? log.proof(index: index)
            else { return nil }
            return ProofIndex.ServedProof(
                proof: proof, etag: document.etag, complete: proof.checkpoint.signatures.count - 1 >= witnessCount)
        }
        files = LogFileIndex(crypto: crypto) { [log, store] tile, isEntries in
            guard isEntries else { return log.hashTile(tile) }
            return try store.read { db in try log.bundle(tile, in: db) }
        }
    }

    /// Sets what runs after each new checkpoint is published (the witness worker's wake-up).
    package func onCheckpoint(_ body: @escaping @Sendable () -> Void) {
        afterCheckpoint.withLock { $0 = body }
    }

    /// Starts the publisher thread.
    package func start() {
        let thread = Thread { [self] in
            while waitForWork() { runOnce() }
            finished.signal()
        }
        thread.name = "pinset.log-publisher"
        thread.start()
    }

    /// Stops the thread after the batch in progress (waits for it). Writes still queued are not published:
    /// they are committed and logged, and the next start-up signs a checkpoint for them.
    package func stop() {
        let first = queue.withLock { queue -> Bool in
            defer { queue.stopped = true }
            return !queue.stopped
        }
        guard first else { return }
        work.signal()
        finished.wait()
    }

    /// Hands over the documents of a committed write, in its order: call it after COMMIT, still inside the
    /// serialized writer section (so hand-overs follow commit order), with the write's log appends.
    package func committed(_ appends: [LogAppend], _ documents: [Pending]) -> Ticket {
        let ticket = Ticket()
        for append in appends { log.didCommit(append) }
        queue.withLock { queue in
            if queue.waitingSince == nil { queue.waitingSince = MonotonicClock.now() }
            queue.pending += documents
            queue.tickets.append(ticket)
        }
        work.signal()
        return ticket
    }

    /// The `log` readiness condition: `nil` while every document handed over was published within
    /// ``readinessLag`` seconds, else why the publisher is behind (or stopped). `now` is monotonic seconds
    /// (``MonotonicClock/now()``).
    package func behind(now: Double = MonotonicClock.now()) -> String? {
        let queue = queue.withLock { $0 }
        if queue.stopped { return "the transparency log's publisher is stopped" }
        guard let since = queue.waitingSince else { return nil }
        let waited = now - since
        guard waited > Self.readinessLag else { return nil }
        let count = queue.pending.count
        return "\(count) logged document(s) have waited \(Int(waited)) s for a signed checkpoint"
            + (queue.lastFailure.map { "; \($0)" } ?? "")
    }

    /// Cosignatures were stored for the latest checkpoint: republish it and the proofs that lacked them.
    package func cosigned() {
        queue.withLock { $0.cosigned = true }
        work.signal()
    }

    private func waitForWork() -> Bool {
        work.wait()
        return !queue.withLock { $0.stopped }
    }

    private func runOnce() {
        let cosigned = queue.withLock { queue in
            defer { queue.cosigned = false }
            return queue.cosigned
        }
        if cosigned { republishUnderCosigned() }
        guard queue.withLock({ !$0.pending.isEmpty || !$0.tickets.isEmpty }) else { return }
        let batch: (pending: [Pending], tickets: [Ticket])
        do {
            batch = try store.serializedWrite { db in
                // Everything handed over so far is in memory (hand-overs happen in this same section), so the
                // checkpoint about to be signed covers exactly the documents taken here.
                let taken = queue.withLock { queue in
                    defer {
                        queue.pending = []
                        queue.tickets = []
                        queue.waitingSince = nil
                    }
                    return (queue.pending, queue.tickets, queue.waitingSince ?? MonotonicClock.now())
                }
                do {
                    try signCheckpoint(db)
                } catch {
                    // Put the batch back in front of what was handed over since, with its waiting time.
                    queue.withLock { queue in
                        queue.pending = taken.0 + queue.pending
                        queue.tickets = taken.1 + queue.tickets
                        queue.waitingSince = taken.2
                        queue.lastFailure = "the last attempt to sign a checkpoint failed: \(error)"
                    }
                    throw error
                }
                queue.withLock { $0.lastFailure = nil }
                return (taken.0, taken.1)
            }
        } catch {
            // The documents are committed and logged, and still queued: try again shortly (the writers keep
            // waiting, up to their own limit).
            logger.error("cannot sign a checkpoint; retrying in 1 s", metadata: ["error": "\(error)"])
            Thread.sleep(forTimeInterval: 1)
            work.signal()
            return
        }
        publishFiles()
        publish(batch.pending)
        for ticket in batch.tickets { ticket.signal() }
        afterCheckpoint.withLock { $0 }?()
    }

    /// Signs and stores a checkpoint of everything in memory, in a transaction of its own without an fsync.
    ///
    /// Why no fsync keeps "never two inconsistent checkpoints" (PROTOCOL §7.1): a checkpoint is only ever signed
    /// over entries that are already durable (each write's transaction, `synchronous = FULL`, committed them
    /// before it handed them over), and entries are append-only, so every checkpoint this log signs, stored or
    /// lost, commits to a prefix of one and the same durable sequence. Losing the last checkpoint row in a power
    /// cut only means the next start-up signs again, for a size at least as large: consistent with it. The WAL
    /// keeps commits in order, so a later durable commit makes this one durable too.
    package func signCheckpoint(_ db: Database) throws {
        try PinDatabase.withoutSync(db) { db in _ = try log.signCheckpoint(in: db, at: clock()) }
    }

    /// Serves the checkpoint and every tile that changed since the files last served.
    package func publishFiles() {
        let served = files.size
        // Without full tiles: those are made when asked for (LogFileIndex).
        files.publish(log.files(changedSince: served, full: false), size: log.checkpointSize)
    }

    /// Each document's proof, then the document, in commit order.
    package func publish(_ documents: [Pending]) {
        let complete = isComplete(log.checkpoint)
        for document in documents {
            do {
                let proof = try log.proof(index: document.leafIndex)
                proofs.publish(document.key, etag: document.etag, proof: proof, complete: complete)
            } catch {
                logger.error(
                    "no proof for a logged document", metadata: ["index": "\(document.leafIndex)", "error": "\(error)"])
            }
            document.publish()
        }
    }

    /// Whether `checkpoint` carries a cosignature of every configured witness.
    private func isComplete(_ checkpoint: SignedNote?) -> Bool {
        guard let checkpoint else { return false }
        return checkpoint.signatures.count - 1 >= witnessCount
    }

    /// The latest checkpoint gained cosignatures: serve it, and rebuild the proofs that lacked some against it.
    private func republishUnderCosigned() {
        publishFiles()
        guard let latest = log.checkpoint else { return }
        let complete = isComplete(latest)
        for (key, entry) in proofs.underCosigned(than: latest.signatures.count - 1) {
            guard let proof = try? log.proof(index: entry.leafIndex) else { continue }
            proofs.publish(key, etag: entry.resource.etag, proof: proof, complete: complete)
        }
        // Writes that kept coming during the witnesses' round: their cosignatures are on an earlier checkpoint,
        // which still proves every entry it includes (PROTOCOL §7.4 accepts any consistent checkpoint).
        guard let earlier = log.cosignedEarlier else { return }
        let earlierComplete = isComplete(earlier.note)
        for (key, entry) in proofs.underCosigned(than: earlier.note.signatures.count - 1)
        where entry.leafIndex < earlier.size {
            guard let proof = try? log.proof(index: entry.leafIndex, in: earlier.note, size: earlier.size) else {
                continue
            }
            proofs.publish(key, etag: entry.resource.etag, proof: proof, complete: earlierComplete)
        }
    }
}
