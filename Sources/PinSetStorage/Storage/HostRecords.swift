import Foundation
package import GRDB
import GRDBSQLite
import PinSetAdminAPI
import PinSetCore

/// SQL for hosts, their pins, their versions and their current documents.
package enum HostRecords {
    /// A new version to store, with everything derived from it.
    package struct NewVersion {
        package var set: PinSet
        package var payload: [UInt8]
        package var document: PublishedDocument
        package var retired: Bool
        package var tokenName: String
        package var change: ChangeKind
        package var added: [String]
        package var removed: [String]
        package var forced = false

        /// Creates a version to store (the memberwise initializer, for the server's writes).
        package init(
            set: PinSet, payload: [UInt8], document: PublishedDocument, retired: Bool, tokenName: String,
            change: ChangeKind, added: [String], removed: [String], forced: Bool = false
        ) {
            self.set = set
            self.payload = payload
            self.document = document
            self.retired = retired
            self.tokenName = tokenName
            self.change = change
            self.added = added
            self.removed = removed
            self.forced = forced
        }
    }

    private static let documentColumns = "d.version AS dVersion, d.body, d.kid, d.issuedAt, d.expiresAt"

    private static func document(_ row: Row, host: String) -> PublishedDocument {
        PublishedDocument(
            host: host, version: row["dVersion"], body: [UInt8](row["body"] as Data), kid: row["kid"],
            issuedAt: StoredTime.date(row["issuedAt"]), expiresAt: StoredTime.date(row["expiresAt"]))
    }

    /// The pins of the host with row id `hostId`, in their stored order.
    package static func pins(_ db: Database, hostId: Int64) throws -> [Pin] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT sha256, type, role, expiresAt, comment FROM pin WHERE hostId = ? ORDER BY position"),
            arguments: [hostId]
        )
        .map { pin in
            Pin(
                sha256: pin[0], type: PinType(rawValue: pin[1]) ?? .spki, role: PinRole(rawValue: pin[2]) ?? .current,
                expiresAt: (pin[3] as Int64?).map(StoredTime.date), comment: pin[4])
        }
    }

    /// The current state of `name`, or `nil` if the host was never written. Columns are read by position
    /// (GRDB's by-name lookup lower-cases each name: measurable on the write path) and the stored ETag is used.
    package static func fetch(_ db: Database, name: String) throws -> HostState? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT h.id, h.version, h.includeSubdomains, h.enforce, h.reportUri, h.retired, h.updatedAt,
                               d.version, d.body, d.etag, d.kid, d.issuedAt, d.expiresAt
                        FROM host h JOIN document d ON d.hostId = h.id WHERE h.name = ?
                        """), arguments: [name])
        else { return nil }
        let id: Int64 = row[0]
        let pins = try pins(db, hostId: id)
        let document = PublishedDocument(
            host: name, version: row[7], body: [UInt8](row[8] as Data), etag: row[9], kid: row[10],
            issuedAt: StoredTime.date(row[11]), expiresAt: StoredTime.date(row[12]))
        return HostState(
            id: id, name: name, version: row[1], includeSubdomains: row[2], enforce: row[3], reportUri: row[4],
            retired: row[5], updatedAt: StoredTime.date(row[6]), pins: pins, document: document)
    }

    /// The hosts' summaries by name: every host, or at most `limit` of them after the name `after` (a page, read
    /// through the name index without touching the others).
    package static func summaries(_ db: Database, after: String? = nil, limit: Int? = nil) throws -> [HostSummary] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT h.name, h.version, h.updatedAt, d.expiresAt, d.etag,
                       (SELECT COUNT(*) FROM pin p WHERE p.hostId = h.id) AS pinCount
                FROM host h JOIN document d ON d.hostId = h.id WHERE h.name > ? ORDER BY h.name LIMIT ?
                """,
            arguments: [after ?? "", limit ?? -1]
        ).map { row in
            HostSummary(
                host: row["name"], version: row["version"], pinCount: row["pinCount"],
                updatedAt: StoredTime.date(row["updatedAt"]), expiresAt: StoredTime.date(row["expiresAt"]),
                etag: row["etag"])
        }
    }

    /// Every host's current document, by name, each checked against the hash its stored ETag holds
    /// (``StoredDocumentCheck``): a damaged one throws `503 document-damaged` naming the host, never reaches a mirror.
    package static func documents(_ db: Database) throws -> [PublishedDocument] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT h.name, d.etag AS storedEtag, \(documentColumns) FROM host h JOIN document d ON d.hostId = h.id ORDER BY h.name"
        )
        .map { row in
            let stored = document(row, host: row["name"])
            let storedEtag: String = row["storedEtag"]
            guard stored.etag == storedEtag else {
                throw ServiceError(
                    .documentDamaged,
                    "the stored document of \(stored.host) is damaged (its bytes do not match their hash); restore a backup or write the host again"
                )
            }
            return stored
        }
    }

    /// How many hosts have a document (to size the read path's table before the start-up load).
    package static func documentCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM host") ?? 0
    }

    /// Calls `body` with every host's current document as raw bytes, read in place from each SQLite row:
    /// no `PublishedDocument`, no copies, no ETag recomputation (the stored `etag` column is the one computed
    /// when the document was signed). The start-up load. The buffers are valid only during each call.
    ///
    /// The host name, the ETag and the body are three columns read straight from SQLite's statement
    /// (`sqlite3_column_blob`): no `Data` per column (40% of the load at a million hosts once) and no value built
    /// per row (an `h.name || d.etag || d.body` made SQLite copy every row into a new blob).
    ///
    /// Returns the largest `issuedAt` of the rows read (``newestIssuedAt(_:)``, which start-up's clock check
    /// needs: read here, it costs start-up no second pass over the documents, 0.3–0.6 s of CPU at a million).
    @discardableResult
    package static func forEachDocument(
        _ db: Database,
        _ body: (
            _ version: Int, _ host: UnsafeRawBufferPointer, _ etag: UnsafeRawBufferPointer,
            _ document: UnsafeRawBufferPointer
        ) throws -> Void
    ) throws -> Date? {
        let statement = try db.makeStatement(
            sql: """
                SELECT d.version, h.name, d.etag, d.body, d.issuedAt
                FROM document d JOIN host h ON h.id = d.hostId
                """)
        let row = statement.sqliteStatement
        // GRDB's cursor steps the statement (and turns SQLite's errors into `DatabaseError`); its row is not read.
        let rows = try Row.fetchCursor(statement)
        var newest: Int64?
        while try rows.next() != nil {
            let issuedAt = sqlite3_column_int64(row, 4)
            if newest.map({ $0 < issuedAt }) ?? true { newest = issuedAt }
            try body(
                Int(sqlite3_column_int64(row, 0)), try statement.columnBytes(1), try statement.columnBytes(2),
                try statement.columnBytes(3))
        }
        return newest.map(StoredTime.date)
    }

    /// The hosts whose document was issued at or before `issuedBefore`, after `issuedAfter` (signed while the
    /// clock was ahead) or signed by a key other than `activeKid`.
    package static func dueForResigning(
        _ db: Database, issuedBefore: Date, activeKid: String, issuedAfter: Date = .distantFuture
    )
        throws -> [String]
    {
        try String.fetchAll(
            db,
            sql: """
                SELECT h.name FROM host h JOIN document d ON d.hostId = h.id
                WHERE d.issuedAt <= ? OR d.kid <> ? OR d.issuedAt > ? ORDER BY h.name
                """,
            arguments: [
                StoredTime.seconds(issuedBefore), activeKid,
                StoredTime.seconds(min(issuedAfter, Date(timeIntervalSince1970: 1e15))),
            ])
    }

    /// The largest `issuedAt` of any current document, `nil` without documents.
    package static func newestIssuedAt(_ db: Database) throws -> Date? {
        try Int64.fetchOne(db, sql: "SELECT max(issuedAt) FROM document").map(StoredTime.date)
    }

    /// The payload JSON stored for `version` of host `id`.
    package static func payload(_ db: Database, hostId: Int64, version: Int) throws -> [UInt8]? {
        try
            (Data.fetchOne(
                db, sql: "SELECT payload FROM hostVersion WHERE hostId = ? AND version = ?",
                arguments: [hostId, version]))
            .map { [UInt8]($0) }
    }

    /// Stores a new version: host row, pins, history entry and current document. Returns the host id.
    @discardableResult
    package static func save(_ db: Database, _ new: NewVersion, existingId: Int64?) throws -> Int64 {
        let set = new.set
        let at = StoredTime.seconds(set.issuedAt)
        let hostId: Int64
        if let existingId {
            hostId = existingId
            try db.cachedStatement(
                sql: """
                    UPDATE host SET version = ?, includeSubdomains = ?, enforce = ?, reportUri = ?, retired = ?, updatedAt = ?
                    WHERE id = ?
                    """
            ).execute(
                arguments: [set.version, set.includeSubdomains, set.enforce, set.reportUri, new.retired, at, hostId])
            try db.cachedStatement(sql: "DELETE FROM pin WHERE hostId = ?").execute(arguments: [hostId])
        } else {
            try db.cachedStatement(
                sql: """
                    INSERT INTO host (name, version, includeSubdomains, enforce, reportUri, retired, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    set.host, set.version, set.includeSubdomains, set.enforce, set.reportUri, new.retired, at, at,
                ])
            hostId = db.lastInsertedRowID
        }
        for (position, pin) in set.pins.enumerated() {
            try db.cachedStatement(
                sql: """
                    INSERT INTO pin (hostId, position, sha256, type, role, expiresAt, comment) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    hostId, position, pin.sha256, pin.type.rawValue, pin.role.rawValue,
                    pin.expiresAt.map(StoredTime.seconds), pin.comment,
                ])
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO hostVersion (hostId, version, at, tokenName, change, added, removed, payload, forced)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                hostId, set.version, at, new.tokenName, new.change.rawValue, jsonArray(new.added),
                jsonArray(new.removed), Data(new.payload), new.forced,
            ])
        try replaceDocument(db, hostId: hostId, new.document)
        return hostId
    }

    /// Makes `document` the current document of host `hostId`, not logged yet (`logIndex` NULL: the log, when there
    /// is one, records its entry next in the same transaction, else the next start with a log does).
    package static func replaceDocument(_ db: Database, hostId: Int64, _ document: PublishedDocument) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO document (hostId, version, body, etag, kid, issuedAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(hostId) DO UPDATE SET version = excluded.version, body = excluded.body, etag = excluded.etag,
                    kid = excluded.kid, issuedAt = excluded.issuedAt, expiresAt = excluded.expiresAt, logIndex = NULL
                """
        ).execute(
            arguments: [
                hostId, document.version, Data(document.body), document.etag, document.kid,
                StoredTime.seconds(document.issuedAt), StoredTime.seconds(document.expiresAt),
            ])
    }

    /// The history of `name`, newest first, or `nil` if the host was never written.
    package static func history(_ db: Database, name: String) throws -> [HistoryEntry]? {
        guard let hostId = try Int64.fetchOne(db, sql: "SELECT id FROM host WHERE name = ?", arguments: [name]) else {
            return nil
        }
        return try Row.fetchAll(
            db, sql: "SELECT * FROM hostVersion WHERE hostId = ? ORDER BY version DESC", arguments: [hostId]
        )
        .map { row in
            var entry = HistoryEntry(
                version: row["version"], at: StoredTime.date(row["at"]), tokenName: row["tokenName"],
                change: ChangeKind(rawValue: row["change"]) ?? .replace, added: parseArray(row["added"]),
                removed: parseArray(row["removed"]))
            entry.forced = (row["forced"] as Int64?) == 1 ? true : nil
            return entry
        }
    }

    private static func jsonArray(_ values: [String]) -> String {
        var writer = JSONWriter(capacity: 2 + 47 * values.count)
        writer.array(values) { json, value in json.string(value) }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func parseArray(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
