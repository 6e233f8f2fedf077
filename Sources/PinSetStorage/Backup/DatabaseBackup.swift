import Foundation
internal import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// An online backup of a pinset database with SQLite's backup API, safe while a server runs and writes.
///
/// The copy is one consistent snapshot: every write committed before the backup's read transaction began is in
/// it (WAL mode: the server keeps writing meanwhile). It is written to a temporary file in the target's
/// directory, switched to a single-file journal mode, checked with ``BackupCheck``, then renamed over `to`; a
/// reader never sees half a backup, and a copy that fails its check never replaces anything.
package enum DatabaseBackup {
    /// Copies the database at `from` to `to` and returns the check of the copy.
    /// - Throws: ``BackupError``; nothing is left at `to` or beside it on failure.
    package static func run(from source: String, to destination: String) throws(BackupError) -> BackupReport {
        guard FileManager.default.fileExists(atPath: source) else {
            throw BackupError(.io, "no database at \(source)")
        }
        let target = URL(fileURLWithPath: destination)
        let directory = target.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).partial-\(getpid())").path
        removeFiles(temporary)
        do {
            try PrivateFiles.createDirectory(directory.path)
        } catch {
            throw BackupError(.io, "cannot create the directory \(directory.path) for the backup: \(error)")
        }
        do {
            var sourceConfiguration = Configuration()
            sourceConfiguration.busyMode = .timeout(30)
            sourceConfiguration.label = "pinset.backup-source"
            let from = try DatabaseQueue(path: source, configuration: sourceConfiguration)
            PrivateFiles.protectDatabase(temporary)  // the backup holds what the database holds: 0600
            let to = try DatabaseQueue(path: temporary)
            try from.backup(to: to)
            // The live file's identity (PinDatabase.watchContent) stays with it: a backup copied over a running
            // server's database must read as another file.
            try to.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 0") }
            // The source is in WAL mode and the copy inherits it: make the backup one self-contained file.
            try to.writeWithoutTransaction { db in try BackupTable.useSingleFileJournal(db) }
            try to.close()
            try from.close()
        } catch {
            removeFiles(temporary)
            throw BackupError(.io, "the backup of \(source) failed: \(error)")
        }
        let report: BackupReport
        do {
            report = try BackupCheck.run(path: temporary)
        } catch {
            removeFiles(temporary)
            throw BackupError(
                error.code, "the copy failed its check, nothing was written to \(destination): \(error.detail)")
        }
        try syncFile(temporary)
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            removeFiles(temporary)
            throw BackupError(.io, "cannot rename the backup to \(destination): \(reason)")
        }
        try syncFile(directory.path)
        var final = report
        final.path = destination
        return final
    }

    private static func removeFiles(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// fsync of a file or directory, so the rename is durable.
    private static func syncFile(_ path: String) throws(BackupError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw BackupError(.io, "cannot open \(path) to sync it: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw BackupError(.io, "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}
