import Foundation
internal import GRDB
import Logging

/// The pinset database: one SQLite file in WAL mode behind a GRDB `DatabasePool`.
///
/// Every connection runs `PRAGMA synchronous = FULL` (a committed write survives power loss), has foreign
/// keys on and waits up to 5 s on a busy database. The schema is built by named, append-only migrations
/// (``PinDatabase/migrator``).
public final class PinDatabase: Sendable {
    let pool: DatabasePool
    let logger: Logger

    /// Opens (creating the file, mode 0600, and its parent directories, 0700, if needed) the database at `path`
    /// and runs
    /// every pending migration. Fails with a 500/503 ``ServiceError`` whose detail names the path; the
    /// SQLite reason goes to the log.
    /// - Parameter logger: where database failures are logged; default a logger labelled `pinset.store`.
    public init(path: String, logger: Logger = Logger(label: "pinset.store")) throws(ServiceError) {
        self.logger = logger
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try PrivateFiles.createDirectory(directory)
        } catch {
            logger.error("cannot create database directory", metadata: ["path": "\(directory)", "error": "\(error)"])
            throw ServiceError(
                .unavailable, "cannot create the database directory \(directory); check that it is writable")
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
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB's WAL set-up runs `PRAGMA synchronous = NORMAL` on the writer after `prepareDatabase`;
            // the pool keeps that one writer connection for its lifetime, so put FULL back on it here.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(pool)
        } catch {
            logger.error("cannot open database", metadata: ["path": "\(path)", "error": "\(error)"])
            throw ServiceError(
                .unavailable,
                "cannot open the database \(path); check the path and its permissions (details in the log)")
        }
    }

    /// Checkpoints the WAL into the main file and closes every connection. The store is unusable afterwards.
    public func close() throws {
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try pool.close()
    }

    /// Whether the database answers `SELECT 1`.
    public func isHealthy() -> Bool {
        do {
            return try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1
        } catch {
            logger.warning("health check failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Runs a read, mapping database failures to a logged 500.
    func read<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        try mappingFailures { try pool.read(body) }
    }

    /// Runs one single-statement read on a reader connection without wrapping it in a transaction (SQLite runs
    /// a lone statement atomically in autocommit mode), for hot paths such as the per-request token check.
    /// `body` must run exactly one statement.
    func readOneStatement<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        try mappingFailures { try pool.unsafeRead(body) }
    }

    /// Runs `body` alone on the writer connection (serialized with every other write), mapping database
    /// failures to a logged 500. `body` opens its own transaction(s).
    func serializedWrite<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        try mappingFailures { try pool.writeWithoutTransaction(body) }
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
    func storageFailure(_ error: any Error) -> ServiceError {
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
    static func withoutSync(_ db: Database, _ body: (Database) throws -> Void) throws {
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
