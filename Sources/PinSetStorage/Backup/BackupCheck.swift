import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetCore

/// Checks a pinset database file, read-only: what `pinset backup` runs on every copy it makes and
/// `pinset backup --check FILE` on an existing one.
///
/// In order: the file is an SQLite database no shorter than its header says; `PRAGMA integrity_check` is `ok`;
/// it holds pinset's schema, with no migration this pinset does not know; every host has a current document that
/// verifies (Ed25519) against a key of its own `signingKey` table, whose kid is that key's thumbprint, and whose
/// payload names the host and its version.
package enum BackupCheck {
    /// Checks `path` and returns what it holds, or throws the first problem found.
    package static func run(path: String) throws(BackupError) -> BackupReport {
        let bytes = try checkHeader(path: path)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "pinset.backup-check"
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                try integrity(db, path: path)
                let (applied, pending) = try schema(db)
                var report = try documents(db)
                report.path = path
                report.bytes = bytes
                report.migrations = applied
                report.pendingMigrations = pending
                return report
            }
        } catch let error as BackupError {
            throw error
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
        {
            throw BackupError(
                .corrupt, "\(path) is damaged (SQLite: \(error.message ?? "malformed")); take a new backup")
        } catch {
            throw BackupError(.io, "cannot read \(path) as a database: \(error)")
        }
    }

    /// The file's size, after checking the SQLite header and that the file is as long as the header says.
    package static func checkHeader(path: String) throws(BackupError) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BackupError(.io, "cannot open \(path); check the path and its permissions")
        }
        defer { try? handle.close() }
        let size: Int
        let header: [UInt8]
        do {
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            header = [UInt8](try handle.read(upToCount: 100) ?? Data())
        } catch {
            throw BackupError(.io, "cannot read \(path): \(error)")
        }
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw BackupError(.notSQLite, "\(path) is not an SQLite database (\(size) bytes, no SQLite header)")
        }
        func number(_ offset: Int, _ count: Int) -> Int {
            header[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = number(16, 2) == 1 ? 65_536 : number(16, 2)
        let pages = number(28, 4)
        // The header's page count is valid when the change counter matches "version valid for" (SQLite ≥ 3.7.0).
        // With a -wal file beside it, recent pages may live there, so the main file may legitimately be shorter.
        let headerCountValid = number(24, 4) == number(92, 4) && pages > 0
        let hasWAL = FileManager.default.fileExists(atPath: path + "-wal")
        if pageSize >= 512, headerCountValid, !hasWAL, size < pages * pageSize {
            throw BackupError(
                .truncated,
                "\(path) is truncated: \(size) bytes, but its header says \(pages) pages of \(pageSize) bytes "
                    + "(\(pages * pageSize) bytes); it was cut short: take a new backup")
        }
        if pageSize >= 512, size % pageSize != 0 {
            throw BackupError(
                .truncated, "\(path) is truncated: \(size) bytes is not a whole number of \(pageSize)-byte pages")
        }
        return size
    }

    private static func integrity(_ db: Database, path: String) throws -> Void {
        let rows = try BackupTable.integrityCheck(db)
        guard rows == ["ok"] else {
            // One row may hold several problems on separate lines; keep the message on one line.
            let problems = rows.flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("***") }
            throw BackupError(
                .corrupt,
                "\(path) is damaged: SQLite's integrity check found \(problems.count) problem(s), e.g. "
                    + "\(problems.prefix(3).joined(separator: "; ")); take a new backup")
        }
    }

    /// (applied migrations, known but not applied).
    private static func schema(_ db: Database) throws -> ([String], [String]) {
        guard try BackupTable.hasPinSetTables(db) else {
            throw BackupError(.schema, "this SQLite file is not a pinset database (no pinset tables)")
        }
        let migrator = PinDatabase.migrator
        let applied = try migrator.appliedMigrations(db)
        let known = migrator.migrations
        let unknown = try BackupTable.migrationIdentifiers(db)
            .filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw BackupError(
                .schema,
                "the database has migrations this pinset does not know (\(unknown.joined(separator: ", "))): "
                    + "it was made by a newer pinset; check and restore it with that version")
        }
        return (applied, known.filter { !applied.contains($0) })
    }

    /// Verifies every host's current document against the keys the database lists.
    private static func documents(_ db: Database) throws -> BackupReport {
        var keys: [String: [UInt8]] = [:]
        for (kid, key) in try BackupTable.signingKeys(db) {
            guard Base64URL.encode(SHA256Digest.hash(Ed25519JWK.thumbprintInput(publicKey: key))) == kid else {
                throw BackupError(.documents, "the signing key listed as \(kid) does not have that thumbprint")
            }
            keys[kid] = key
        }
        var problems: [String] = []
        var verified = 0
        let rows = try BackupTable.hostDocuments(db)
        for row in rows {
            let host = row.host
            guard let body = row.body else {
                problems.append("\(host) has no document")
                continue
            }
            if let problem = check(document: body, host: host, version: row.version, kid: row.kid, keys: keys) {
                problems.append("\(host): \(problem)")
            } else {
                verified += 1
            }
        }
        guard problems.isEmpty else {
            throw BackupError(
                .documents,
                "\(problems.count) of \(rows.count) document(s) do not verify: "
                    + problems.prefix(5).joined(separator: "; "))
        }
        let tokens = try BackupTable.activeTokenCount(db)
        let trust = try BackupTable.trustDocumentCount(db)
        return BackupReport(
            path: "", bytes: 0, migrations: [], pendingMigrations: [], hosts: rows.count, verifiedDocuments: verified,
            keys: keys.count, activeTokens: tokens, trustDocuments: trust)
    }

    /// Why one stored document is bad, or `nil` when it verifies and matches its host row.
    package static func check(document body: [UInt8], host: String, version: Int, kid: String?, keys: [String: [UInt8]])
        -> String?
    {
        guard let document = try? SignedDocument.decode(json: body) else { return "the document is not a JWS" }
        guard let headerBytes = Base64URL.decode(document.protected),
            let header = try? JSONDecoder().decode(JWSHeader.self, from: Data(headerBytes)),
            header.alg == SignedDocument.algorithm, header.typ == SignedDocument.type, let headerKid = header.kid
        else { return "the protected header is not a pinset header" }
        guard headerKid == kid else { return "the header's kid differs from the stored one" }
        guard let key = keys[headerKid] else { return "signed by \(headerKid), a key the database does not list" }
        guard let signature = Base64URL.decode(document.signature),
            Ed25519.verify(signature: signature, message: document.signingInput, publicKey: key)
        else { return "the signature does not verify against key \(headerKid)" }
        guard let payload = Base64URL.decode(document.payload), let set = try? PinSet.decode(json: payload) else {
            return "the payload is not a pin set"
        }
        guard set.host == host else { return "the payload names \(set.host)" }
        guard set.version == version else { return "the payload has version \(set.version), the host \(version)" }
        return nil
    }
}
