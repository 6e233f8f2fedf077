import Foundation
package import GRDB
import Locking
import Logging

/// The pinset database: one SQLite file in WAL mode behind a GRDB `DatabasePool`.
///
/// Every connection runs `PRAGMA synchronous = FULL` (a committed write survives power loss), has foreign
/// keys on and waits up to 5 s on a busy database. The schema is built by named, append-only migrations
/// (``PinDatabase/migrator``).
package final class PinDatabase: Sendable {
    package let pool: DatabasePool
    package let logger: Logger

    /// The storage faults in force (a replaced file, a full disk, damaged hosts): what `/readyz` reports.
    package let health = StorageHealth()
    /// The database's files as opened (device and inode), watched for replacement.
    package let files: DatabaseFiles
    /// The database path.
    package let path: String
    /// Where writes wait while start-up's integrity check runs (``holdWrites()``).
    private let writeGate = WriteGate()
    /// How long a write waits for start-up's integrity check before it is refused with a `503` (the check of a
    /// 2.5 GB database takes about 1.5 s).
    package static let writeHoldLimit: Double = 30
    /// WAL checkpoints that failed so far, and whether the last one did (`/metrics`).
    package let checkpoints = Locked((failures: 0, lastFailed: false))

    /// Pools of databases whose files were replaced under them: never closed (see ``close()``).
    private static let abandoned = Locked<[DatabasePool]>([])

    /// Where the server and the CLI keep the database when no `--db` or `PINSET_DB` says otherwise.
    package static let defaultPath = "./data/pinset.sqlite"
    /// The `application_id` pinset writes into its databases' header ("PINS"): a file with another non-zero one
    /// belongs to another program and is refused.
    package static let applicationID: Int32 = 0x5049_4E53

    /// Opens (creating the file, mode 0600, and its parent directories, 0700, if needed) the database at `path` and runs
    /// every pending migration. Fails with a ``ServiceError`` whose detail names the path and the cause (a
    /// full disk, permissions, a damaged file); the SQLite reason goes to the log. Refuses (code
    /// ``ServiceError/Code/incompatibleDatabase``) a database made by a newer pinset (a migration this binary does
    /// not know) or by another program (`application_id`), and a database that another process has open with its
    /// `-shm` or `-wal` deleted under it (a write here would be lost: restart that process first).
    /// - Parameter logger: where database failures are logged; default a logger labelled `pinset.store`.
    package init(path: String, logger: Logger = Logger(label: "pinset.store")) throws(ServiceError) {
        self.logger = logger
        self.path = path
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try PrivateFiles.createDirectory(directory)
        } catch {
            logger.error("cannot create database directory", metadata: ["path": "\(directory)", "error": "\(error)"])
            throw ServiceError(
                .unavailable,
                "cannot create the database directory \(directory): \(Self.systemCause(error) ?? "check that it is writable")"
            )
        }
        if !Self.isOpenInThisProcess(path), let unsafe = DatabaseFiles.unsafeSharing(path: path) {
            throw ServiceError(
                .storageReplaced,
                "refusing to open the database: \(unsafe); a write here would be lost. Stop that process (a pinset server refuses writes in this state), then retry"
            )
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.label = "pinset"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        PrivateFiles.protectDatabase(path)
        do {
            pool = try Self.openPool(path: path, configuration: configuration)
            // GRDB's WAL set-up runs `PRAGMA synchronous = NORMAL` on the writer after `prepareDatabase`;
            // the pool keeps that one writer connection for its lifetime, so put FULL back on it here.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try pool.read { db in try Self.checkCompatible(db, path: path) }
            try Self.migrate(pool)
            try pool.writeWithoutTransaction { db in
                if try Int32.fetchOne(db, sql: "PRAGMA application_id") == 0 {
                    try db.execute(sql: "PRAGMA application_id = \(Self.applicationID)")
                }
            }
        } catch let error as ServiceError {
            throw error
        } catch {
            logger.error("cannot open database", metadata: ["path": "\(path)", "error": "\(error)"])
            throw Self.openFailure(error, path: path)
        }
        files = DatabaseFiles(path: path)
        Self.registerOpen(files.key, 1)
    }

    /// Checkpoints the WAL into the main file (unless another process has it open) and closes every connection. The
    /// store is unusable afterwards.
    ///
    /// When a file was replaced under the store (``StorageHealth``), nothing is checkpointed or closed: SQLite would
    /// delete the `-wal` and `-shm` at those paths, which may now belong to a restored database. The descriptors go
    /// with the process.
    package func close() throws {
        if health.current.contains(where: { $0.kind == .fileReplaced }) {
            logger.warning("not closing the database cleanly: its files were replaced under the server")
            // Kept for the life of the process: when its last connection closes (in the pool's deinit), SQLite
            // checkpoints the old WAL through its descriptors into the file at the path, now the restored one.
            Self.abandoned.withLock { $0.append(pool) }
            return
        }
        do {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            // Another process has the database open (a CLI command beside the server): the WAL keeps every
            // commit, and the last connection to close checkpoints it. Closing goes on.
            logger.debug("the WAL stays: another process has the database open")
        }
        try pool.close()
        files.stopWatchingContent()
        Self.registerOpen(files.key, -1)
    }

    /// Whether the database answers `SELECT 1`.
    package func isHealthy() -> Bool {
        do {
            return try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1
        } catch {
            logger.warning("health check failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Makes every later write wait (``serializedWrite(_:)``) until ``openWrites()``: the server holds them while
    /// start-up's integrity check (``quickCheck()``) runs beside the first reads. Call each once.
    package func holdWrites() { writeGate.hold() }

    /// Lets the writes held by ``holdWrites()`` through.
    package func openWrites() { writeGate.open() }

    /// Refuses the writes held by ``holdWrites()``, and every later one, with a `503` saying `reason`.
    package func refuseWrites(_ reason: String) { writeGate.refuse(reason) }

    /// Runs a read, mapping database failures to a logged 500.
    package func read<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        try mappingFailures { try pool.read(body) }
    }

    /// Runs one single-statement read on a reader connection without wrapping it in a transaction (SQLite runs
    /// a lone statement atomically in autocommit mode), for hot paths such as the per-request token check.
    /// `body` must run exactly one statement.
    package func readOneStatement<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        try mappingFailures { try pool.unsafeRead(body) }
    }

    /// Runs `body` alone on the writer connection (serialized with every other write), mapping database
    /// failures to a logged 500 (a full disk to a `503 storage-full`). `body` opens its own transaction(s).
    ///
    /// The database's files are checked before and after `body` (``checkFiles()``): nothing is written into a
    /// file that is no longer the database, and a write that committed while it was replaced is not acknowledged
    /// (`503 storage-replaced`).
    ///
    /// While start-up's integrity check runs (``holdWrites()``), the write waits for it first.
    package func serializedWrite<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        if let refusal = writeGate.waitOpen(seconds: Self.writeHoldLimit) {
            throw ServiceError(.unavailable, refusal)
        }
        try checkFiles()
        let result = try mappingFailures { try pool.writeWithoutTransaction(body) }
        try checkFiles()
        if health.clear(.diskFull) { logger.notice("the disk has room again: writes are accepted") }
        return result
    }

    /// Passes a ``ServiceError`` through and turns any other failure into the logged 500 of ``storageFailure(_:)``.
    private func mappingFailures<T>(_ operation: () throws -> T) throws(ServiceError) -> T {
        do {
            return try operation()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw storageFailure(error)
        }
    }

    /// Logs a database error and returns what the caller sees (without the SQLite details): a `409` for a
    /// constraint that a concurrent write broke first (two creations of one host or one token name racing),
    /// else a `500`.
    package func storageFailure(_ error: any Error) -> ServiceError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            let problem = StorageProblem(
                .diskFull,
                "the disk holding the database \(path) is full: nothing was written; free space, then retry (no restart needed)"
            )
            if health.report(problem) {
                logger.critical("disk full: writes refused", metadata: ["path": "\(path)", "error": "\(error)"])
            }
            return ServiceError(.storageFull, problem.detail)
        }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT {
            logger.notice("constraint conflict", metadata: ["error": "\(error)"])
            return ServiceError(
                .conflict, "the change conflicts with a concurrent write that committed first; re-read and retry")
        }
        logger.error("database failure", metadata: ["error": "\(error)"])
        return ServiceError(.storage, "the database failed; the server log has the details")
    }
}

extension PinDatabase {
    /// Runs `body` in a transaction committed without an fsync (`synchronous = NORMAL` in WAL mode: durable at
    /// the next synced commit, and never out of order), for what a crash may lose without harm and nobody was
    /// promised: the log's checkpoints (see ``LogPublisher/signCheckpoint(_:)``) and cosignatures (asked for
    /// again), and the monitor's results (the next pass probes again; a change of state lost with its row is
    /// found and alerted again). Never for an acknowledged write.
    ///
    /// The writer connection is set back to `synchronous = FULL` afterwards, whatever happened; if even that
    /// fails the process stops, since every later write would be acknowledged without an fsync.
    package static func withoutSync(_ db: Database, _ body: (Database) throws -> Void) throws {
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
        defer {
            do {
                try db.execute(sql: "PRAGMA synchronous = FULL")
            } catch {
                fatalError(
                    "cannot set the database back to synchronous = FULL, so writes would not be durable: \(error)")
            }
        }
        try db.inTransaction {
            try body(db)
            return .commit
        }
    }
}
