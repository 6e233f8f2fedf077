import Dispatch
import Foundation
internal import GRDB
import Locking
import Logging
import PinSetCore
import PinSetStorage
import TransparencyLog

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The forks of this server's own log (PROTOCOL §7.2): checkpoints signed by the log key that are not checkpoints
/// of the server's tree, found at a witness that refused the server's checkpoint, or in a client's fork report
/// (§3). Each is persisted with both notes, logged loudly, sent to the alert webhook (`log-fork`), counted in
/// `/metrics` and shown by `GET /admin/log` until an administrator acknowledges it. The foreign checkpoint is
/// never adopted.
package final class LogForks: Sendable {
    /// A recorded fork, as `GET /admin/log` shows it.
    package struct Fork: Sendable, Encodable, Equatable {
        /// Its number, for `POST /admin/log/forks/{id}/acknowledge`.
        package let id: Int
        /// The checkpoint signed by this log's key that is not one of its tree's, as found.
        package let foreignCheckpoint: String
        /// This server's own checkpoint (of the same size when it has one, else its latest).
        package let ownCheckpoint: String
        /// Where it was found: `witness <url>` or `report`.
        package let source: String
        /// When it was first found.
        package let detectedAt: Date
        /// When an administrator acknowledged it (`nil`: still shown as open).
        package let acknowledgedAt: Date?
    }

    /// The alert webhook's `log-fork` event.
    package struct Event: Codable, Sendable, Equatable {
        package var event = "log-fork"
        package var origin: String
        package var source: String
        package var foreignCheckpoint: String
        package var ownCheckpoint: String
        package var at: String
    }

    private let log: LogState
    private let store: PinDatabase
    private let crypto: any TrustCrypto
    private let logger: Logger
    private let openCount = Locked(0)
    private let webhook: Locked<AlertWebhook?> = Locked(nil)

    package init(log: LogState, store: PinDatabase, crypto: any TrustCrypto, logger: Logger) {
        self.log = log
        self.store = store
        self.crypto = crypto
        self.logger = logger
    }

    /// Reads the open forks' count (start-up) and logs each open one again: a fork stays loud across restarts.
    package func load() throws {
        let open = try all().filter { $0.acknowledgedAt == nil }
        openCount.withLock { $0 = open.count }
        for fork in open { shout(fork, again: true) }
    }

    /// Sends every newly recorded fork to `url` as a `log-fork` event.
    package func alert(to url: URL?) {
        webhook.withLock { $0 = url.map { AlertWebhook(url: $0, logger: logger) } }
    }

    /// Forks not acknowledged yet (`pinset_log_forks`).
    package var open: Int { openCount.withLock { $0 } }

    /// Every recorded fork, newest first (at most 100).
    package func all() throws -> [Fork] {
        try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, foreignNote, ownNote, source, detectedAt, acknowledgedAt FROM logFork
                    ORDER BY id DESC LIMIT 100
                    """
            ).map { row in
                Fork(
                    id: row["id"], foreignCheckpoint: String(decoding: row["foreignNote"] as Data, as: UTF8.self),
                    ownCheckpoint: String(decoding: row["ownNote"] as Data, as: UTF8.self), source: row["source"],
                    detectedAt: StoredTime.date(row["detectedAt"]),
                    acknowledgedAt: (row["acknowledgedAt"] as Int64?).map(StoredTime.date))
            }
        }
    }

    /// Acknowledges fork `id`; `false` when there is no such fork or it was acknowledged before.
    package func acknowledge(_ id: Int, at now: Date = Date()) throws -> Bool {
        let changed = try store.serializedWrite { db in
            try db.inTransaction {
                try db.execute(
                    sql: "UPDATE logFork SET acknowledgedAt = ? WHERE id = ? AND acknowledgedAt IS NULL",
                    arguments: [StoredTime.seconds(now), id])
                return .commit
            }
            return db.changesCount > 0
        }
        if changed {
            openCount.withLock { $0 = max(0, $0 - 1) }
            logger.notice("a log fork was acknowledged", metadata: ["fork": "\(id)"])
        }
        return changed
    }

    /// Whether `note` is a checkpoint of this log's origin that verifies under its key.
    package func isSignedByLog(_ note: SignedNote) -> Bool {
        guard (try? note.verify([log.verifierKey], crypto: crypto))?.isEmpty == false,
            let checkpoint = try? Checkpoint(text: note.text)
        else { return false }
        return checkpoint.origin == log.origin
    }

    /// Whether `note` is a fork of this log: it verifies under the log key, has this log's origin, and is not a
    /// checkpoint of this tree (larger than the tree, or another root at its size).
    package func isFork(_ note: SignedNote) -> Bool {
        guard isSignedByLog(note), let checkpoint = try? Checkpoint(text: note.text) else { return false }
        guard let root = log.rootHash(size: checkpoint.size) else { return true }
        return root != checkpoint.rootHash
    }

    /// Records `note` as a fork found at `source` when ``isFork(_:)``; `true` when it is one (new or known).
    @discardableResult
    package func consider(_ note: SignedNote, source: String, at now: Date = Date()) -> Bool {
        guard isFork(note) else { return false }
        do {
            if let fork = try record(note, source: source, at: now) { shout(fork, again: false) }
        } catch {
            // Still loud: the fork is real even if it could not be stored.
            logger.critical(
                "LOG FORK found but not stored", metadata: ["source": "\(source)", "error": "\(error)"])
        }
        return true
    }

    /// Reads the newest checkpoint `witness` cosigned (its `GET <url>/<origin hash>/checkpoint`, §7.2) and records
    /// it if it is a fork; `true` when it is one. Blocks up to `timeout` seconds: call it off Swift's pool.
    @discardableResult
    package func check(_ witness: WitnessEndpoint, timeout: TimeInterval) -> Bool {
        let hash = crypto.sha256(Array(log.origin.utf8)).map { String(format: "%02x", $0) }.joined()
        var request = URLRequest(
            url: witness.url.appendingPathComponent(hash).appendingPathComponent("checkpoint"),
            timeoutInterval: timeout)
        request.httpMethod = "GET"
        let body = Locked<Data?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, _ in
            if (response as? HTTPURLResponse)?.statusCode == 200 { body.withLock { $0 = data } }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout + 1) == .timedOut {
            task.cancel()
            return false
        }
        guard let data = body.withLock({ $0 }), data.count <= SignedNote.maxBytes,
            let note = try? SignedNote(parsing: [UInt8](data))
        else { return false }
        return consider(note, source: "witness \(witness.displayURL)")
    }

    /// Stores a fork; the fork when it is new, `nil` when this checkpoint was recorded before.
    private func record(_ note: SignedNote, source: String, at now: Date) throws -> Fork? {
        let size = (try? Checkpoint(text: note.text).size) ?? 0
        let fork: Fork? = try store.serializedWrite { db in
            var fork: Fork? = nil
            try db.inTransaction {
                let own =
                    try Data.fetchOne(db, sql: "SELECT note FROM logCheckpoint WHERE treeSize = ?", arguments: [size])
                    ?? Data.fetchOne(db, sql: "SELECT note FROM logCheckpoint ORDER BY treeSize DESC LIMIT 1")
                    ?? Data()
                try db.execute(
                    sql: """
                        INSERT INTO logFork (foreignText, foreignNote, ownNote, source, detectedAt)
                        VALUES (?, ?, ?, ?, ?) ON CONFLICT (foreignText) DO NOTHING
                        """,
                    arguments: [Data(note.text), Data(note.bytes), own, source, StoredTime.seconds(now)])
                if db.changesCount > 0 {
                    fork = Fork(
                        id: Int(db.lastInsertedRowID), foreignCheckpoint: String(decoding: note.bytes, as: UTF8.self),
                        ownCheckpoint: String(decoding: own, as: UTF8.self), source: source,
                        detectedAt: StoredTime.truncate(now), acknowledgedAt: nil)
                }
                return .commit
            }
            return fork
        }
        if fork != nil { openCount.withLock { $0 += 1 } }
        return fork
    }

    /// The loud log line (both notes: public, signed checkpoints), and the webhook for a new fork.
    private func shout(_ fork: Fork, again: Bool) {
        logger.critical(
            again
                ? "LOG FORK still open: the log key signed a checkpoint that is not this server's (acknowledge it)"
                : "LOG FORK: the log key signed a checkpoint that is not this server's; the key is used elsewhere",
            metadata: [
                "origin": "\(log.origin)", "fork": "\(fork.id)", "source": "\(fork.source)",
                "foreign": "\(fork.foreignCheckpoint)", "own": "\(fork.ownCheckpoint)",
            ])
        guard !again, let webhook = webhook.withLock({ $0 }) else { return }
        webhook.send(
            fork: Event(
                origin: log.origin, source: fork.source, foreignCheckpoint: fork.foreignCheckpoint,
                ownCheckpoint: fork.ownCheckpoint, at: RFC3339.format(fork.detectedAt)))
    }

    /// Waits until queued webhook events were tried, at most `seconds` (shutdown).
    package func drain(seconds: TimeInterval) { webhook.withLock { $0 }?.drain(seconds: seconds) }
}
