import Foundation
package import GRDB
import Locking
import Logging

#if canImport(Glibc)
    import Glibc
#endif

extension PinDatabase {
    /// Throws `503 storage-replaced` (logged at `critical` once) when the database, its `-wal` or its `-shm` is no
    /// longer the file opened: SQLite would go on writing into a file nobody will ever open again.
    package func checkFiles() throws(ServiceError) {
        if let problem = health.current.first(where: { $0.kind == .fileReplaced }) {
            throw ServiceError(.storageReplaced, problem.detail)
        }
        guard let (file, what) = files.changed() else { return }
        let problem = StorageProblem(
            .fileReplaced,
            "the database file \(file) was \(what) while the server ran: writes are refused so that none is acknowledged into a file that is no longer the database. Restart the server (see the README's restore runbook)"
        )
        if health.report(problem) {
            logger.critical(
                "database file replaced under the server: writes refused until restart",
                metadata: ["file": "\(file)", "what": "\(what)"])
            if file != path { rescueWAL() } else { setAsideWAL() }
        }
        throw ServiceError(.storageReplaced, problem.detail)
    }

    /// Marks the database's header with an identity (its `user_version`, written once, when 0) and watches it, so
    /// that a copy over the live file, which keeps its inode, is noticed like a file renamed over it. The server
    /// calls it; the CLI's commands, which open the same file while a server runs, do not change the identity.
    /// `pinset backup` clears it in the copy, so a restored backup never carries the identity of the live file.
    package func watchContent() {
        if DatabaseFiles.measurementOnlyWatchOff {
            logger.warning(
                "PINSET_MEASURE_FILE_WATCH=off: the file watch is off (for benchmarks only); a database file replaced or deleted under this server will not be noticed"
            )
        }
        do {
            let identity = try pool.writeWithoutTransaction { db -> Int32 in
                var identity = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                if identity == 0 {
                    identity = Int32.random(in: 1...Int32.max)
                    try db.execute(sql: "PRAGMA user_version = \(identity)")
                }
                _ = try? db.checkpoint(.passive)  // page 1, with the identity, into the file
                return identity
            }
            files.watchContent(identity: identity)
        } catch {
            logger.warning(
                "cannot mark the database's header: a copy over the live file will not be noticed",
                metadata: ["error": "\(error)"])
        }
    }

    /// With the database file itself replaced (renamed over, or copied over in place), the `-wal` and `-shm` at
    /// its path still belong to the database the server opened: the next start would replay that WAL's pages onto
    /// the restored file and corrupt it. They are renamed aside (kept: the WAL holds the writes since the last
    /// checkpoint of the replaced database), so the restored file opens as it was restored.
    private func setAsideWAL() {
        let stamp = Int(Date().timeIntervalSince1970)
        for suffix in ["-wal", "-shm"] where files.isRecorded(suffix) {
            let aside = "\(path)\(suffix).replaced-\(stamp)"
            if rename(path + suffix, aside) == 0 {
                logger.notice(
                    "moved the replaced database's file aside: the restored database must not replay it",
                    metadata: ["file": "\(path)\(suffix)", "movedTo": "\(aside)"])
            } else {
                logger.critical(
                    "cannot move the replaced database's file aside: remove it before restarting, or the restored database is corrupted at start",
                    metadata: ["file": "\(path)\(suffix)", "error": "\(String(cString: strerror(errno)))"])
            }
        }
    }

    /// With the database file itself still in place but its `-wal` or `-shm` gone, SQLite still holds both on its
    /// open descriptors: a checkpoint copies every committed write from the old WAL into the database file, so
    /// that the next start (which finds no WAL) loses none of them.
    private func rescueWAL() {
        do {
            let (frames, checkpointed) = try checkpoint()
            logger.notice(
                "checkpointed the WAL the server still holds into the database file, so no committed write is lost",
                metadata: ["walFrames": "\(frames)", "checkpointed": "\(checkpointed)"])
        } catch {
            logger.critical(
                "cannot checkpoint the WAL after its file was replaced: writes since the last checkpoint may be lost at restart",
                metadata: ["error": "\(error)"])
        }
    }

    /// Checks the files now (the watcher's tick): records and logs a replaced file.
    package func watchFiles() {
        do { try checkFiles() } catch {}
    }

    /// How much of the database file start-up's `quick_check` maps into memory instead of reading it page by page
    /// with `pread` (SQLite caps it: 2 GB in Debian's build). At a million hosts (1.7 GB) this cut sqlite3's CPU for it
    /// from 2.6 s to 2.1 s (the kernel's copies); the server's check thread spends 1.2 s (bench/scale.sh). The load of
    /// the documents gained nothing from a map and reads as before. Only
    /// for that one pass: a mapped page that cannot be read (EIO, a file truncated under the server) is a SIGBUS, not
    /// an SQLite error, so the connection is unmapped again at once.
    static let startupMapBytes = 1 << 40

    /// ``read(_:)`` through a memory map of the file (``startupMapBytes``), for one start-up pass that reads
    /// much of the file once: SQLite then copies no page out of the kernel. Unmapped again at once, as for
    /// ``quickCheck()``. The transparency log's leaf hashes are read this way; since `v12-log-leaf-hash-index`
    /// they come from a 43 MB index at a million entries instead of the entries' rows, so the map matters less.
    package func readMapped<T>(_ body: (Database) throws -> T) throws(ServiceError) -> T {
        try read { db in
            try db.execute(sql: "PRAGMA mmap_size = \(Self.startupMapBytes)")
            defer { try? db.execute(sql: "PRAGMA mmap_size = 0") }
            return try body(db)
        }
    }

    /// SQLite's `PRAGMA quick_check`: the problems found (at most 20), none when the file is sound.
    package func quickCheck() throws(ServiceError) -> [String] {
        let rows: [String]
        do {
            rows = try pool.read { db in
                // quick_check reads every page once: mapped (``startupMapBytes``).
                try db.execute(sql: "PRAGMA mmap_size = \(Self.startupMapBytes)")
                defer { try? db.execute(sql: "PRAGMA mmap_size = 0") }
                return try String.fetchAll(db, sql: "PRAGMA quick_check(20)")
            }
        } catch let error as DatabaseError
            where error.resultCode.primaryResultCode == .SQLITE_CORRUPT
            || error.resultCode.primaryResultCode == .SQLITE_NOTADB
        {
            return ["SQLite: \(error.message ?? "malformed")"]
        } catch {
            throw storageFailure(error)
        }
        guard rows != ["ok"] else { return [] }
        return rows.flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("***") }
    }

    /// Records the outcome of a checkpoint run by the storage watch.
    package func checkpointFailed(_ failed: Bool) {
        checkpoints.withLock { $0 = (failures: $0.failures + (failed ? 1 : 0), lastFailed: failed) }
    }

    /// The size of the `-wal` file in bytes.
    package var walBytes: Int { files.walBytes }

    /// Runs a passive checkpoint (never waits for readers or writers) and returns the WAL's frames left
    /// uncheckpointed; throws when SQLite cannot write the database file (a read-only or immutable file, an I/O
    /// error), which SQLite's own automatic checkpoints never report.
    package func checkpoint() throws -> (walFrames: Int, checkpointed: Int) {
        try pool.writeWithoutTransaction { db in
            let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
            return (row?[1] ?? 0, row?[2] ?? 0)
        }
    }

    /// Refuses a database this binary must not write: another program's (`application_id`), or one with a
    /// migration this binary does not know (made by a newer pinset: an older binary would serve and write
    /// documents that the newer schema's rules, such as the transparency log's, never see).
    package static func checkCompatible(_ db: Database, path: String) throws {
        let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        guard application == 0 || application == applicationID else {
            throw ServiceError(
                .incompatibleDatabase,
                "\(path) is not a pinset database (its application_id is \(application), pinset's is \(applicationID)); check --db"
            )
        }
        guard try db.tableExists("grdb_migrations") else { return }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        let known = migrator.migrations
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw ServiceError(
                .incompatibleDatabase,
                "\(path) was written by a newer pinset: its schema is at \(applied.last ?? "?") (migrations this pinset does not know: \(unknown.joined(separator: ", "))), this pinset's newest is \(known.last ?? "?"). Refusing to open it: run the pinset that wrote it, or restore a backup this version made"
            )
        }
    }

    /// The error for a database that could not be opened, naming the real cause.
    package static func openFailure(_ error: any Error, path: String) -> ServiceError {
        let code = (error as? DatabaseError)?.resultCode.primaryResultCode
        let cause: String
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let free = (try? FileManager.default.attributesOfFileSystem(forPath: directory))?[.systemFreeSize] as? NSNumber
        if let free, free.int64Value < 1 << 20, code != .SQLITE_CORRUPT, code != .SQLITE_NOTADB {
            return ServiceError(
                .storageFull,
                "cannot open the database \(path): the disk holding it is full (\(free.int64Value) bytes free; SQLite needs room for its -wal and -shm files); free space, then start again"
            )
        }
        switch code {
        case .SQLITE_FULL?:
            return ServiceError(
                .storageFull, "cannot open the database \(path): the disk is full; free space, then start again")
        case .SQLITE_CORRUPT?, .SQLITE_NOTADB?:
            cause =
                "the file is damaged or not an SQLite database; restore a backup (`pinset backup --check FILE` checks one)"
        case .SQLITE_READONLY?:
            cause = "the file or its directory is read-only (or immutable); pinset needs to write it"
        case .SQLITE_BUSY?, .SQLITE_LOCKED?:
            cause = "another process held it locked for more than 5 s (a backup, or a command in a loop); retry"
        case .SQLITE_IOERR?:
            cause = "an I/O error (a failing disk, or no space for the -wal/-shm files: check `df`); details in the log"
        default:
            cause = systemCause(error) ?? "check the path and its permissions (details in the log)"
        }
        return ServiceError(.unavailable, "cannot open the database \(path): \(cause)")
    }

    /// A readable cause for an error that carries a POSIX errno (a full disk, permissions), `nil` otherwise.
    package static func systemCause(_ error: any Error) -> String? {
        let ns = error as NSError
        let errno =
            (ns.domain == NSPOSIXErrorDomain ? ns.code : nil)
            ?? (ns.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap {
                $0.domain == NSPOSIXErrorDomain ? $0.code : nil
            }
        switch errno.map(Int32.init) {
        case ENOSPC?: return "the disk is full; free space, then start again"
        case EACCES?, EPERM?: return "permission denied; check the path's owner and mode"
        case EROFS?: return "the file system is read-only"
        default: return nil
        }
    }

    private static let openPaths = Locked<[String: Int]>([:])

    /// Counts this process's open stores per database file (device and inode): opening and closing a descriptor
    /// on a file this process has open in SQLite would drop SQLite's POSIX locks on it, so the check of other
    /// processes' locks runs only when this process has the file open nowhere else.
    package static func registerOpen(_ key: String?, _ delta: Int) {
        guard let key else { return }
        openPaths.withLock { paths in
            let count = (paths[key] ?? 0) + delta
            paths[key] = count > 0 ? count : nil
        }
    }

    /// Whether a store of this process has the file at `path` open.
    package static func isOpenInThisProcess(_ path: String) -> Bool {
        guard let key = DatabaseFiles.key(path) else { return false }
        return openPaths.withLock { $0[key] != nil }
    }
}
