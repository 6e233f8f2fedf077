import ArgumentParser
import Foundation
import PinSetStorage

/// `pinset backup`: an online backup of the database, checked; or `--check FILE` on an existing backup.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the database while the server runs, and check the copy; or check an existing backup.",
        discussion: """
            pinset backup --db FILE --out BACKUP copies the database with SQLite's online backup (the server keeps \
            serving and writing), into a temporary file beside BACKUP, checks it, then renames it to BACKUP. \
            pinset backup --check BACKUP runs the same checks on an existing file: SQLite's integrity check, \
            pinset's schema (migrations), and every current document verified against the keys the database \
            lists. Exits 1 with the reason when a check fails. The signing key is not in the database: back it \
            up separately.
            """)
    @Option(help: "SQLite database file to back up. Env PINSET_DB. Default ./data/pinset.sqlite.") var db: String?
    @Option(help: "The backup file to write (replaced atomically).") var out: String?
    @Option(help: "Check this existing backup file instead of making one.") var check: String?

    func validate() throws {
        guard (out == nil) != (check == nil) else {
            throw ValidationError("give --out FILE to make a backup, or --check FILE to check one")
        }
    }

    func run() throws {
        if let check {
            print("backup ok: \(try BackupCheck.run(path: check))")
            return
        }
        let source = Environment.databasePath(db)
        let report = try DatabaseBackup.run(from: source, to: out ?? "")
        print("backup written and checked: \(report)")
    }
}
