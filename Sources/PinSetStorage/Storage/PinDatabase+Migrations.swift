import Foundation
package import GRDB
import PinSetAdminAPI

extension PinDatabase {
    /// Opens the pool, waiting while another process sets up the same new file.
    ///
    /// Turning a new file to WAL takes an exclusive lock; when two openers both hold a shared one, SQLite answers
    /// one of them `SQLITE_BUSY` at once, without its busy handler (waiting could not help). That opener tries
    /// again, every 50 ms for up to 5 s (the busy timeout the connections use).
    static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        var attempts = 0
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempts < 100 {
                attempts += 1
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Applies every step of ``migrator`` that the database lacks, also when another process opens the same new
    /// file at the same moment (`docker run`, then `docker exec ... pinset token create`).
    ///
    /// GRDB reads the applied steps once, then runs each missing one in its own transaction: a step the other
    /// opener commits in between fails here ("table ... already exists"). The migrator then runs again, from the
    /// steps now applied, for as long as each failure finds more of them applied than before; a step that fails
    /// with nothing applied in between is the error. Bounded: every retry needs a newly applied step.
    static func migrate(_ pool: DatabasePool) throws {
        let migrator = Self.migrator
        var applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        for _ in 0...migrator.migrations.count {
            do {
                try migrator.migrate(pool)
                return
            } catch {
                let now = try pool.read { db in try migrator.appliedIdentifiers(db) }
                guard now.isStrictSuperset(of: applied) else { throw error }
                applied = now
            }
        }
        try migrator.migrate(pool)
    }

    /// The schema, as named, append-only steps. Never edit a step that has shipped; add a new one.
    ///
    /// Times are stored as integer seconds since 1970 (UTC); pin hashes as their base64 text.
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(
                sql: """
                    CREATE TABLE host (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        version INTEGER NOT NULL CHECK (version >= 1),
                        includeSubdomains INTEGER NOT NULL,
                        enforce INTEGER NOT NULL,
                        reportUri TEXT,
                        retired INTEGER NOT NULL DEFAULT 0,
                        createdAt INTEGER NOT NULL,
                        updatedAt INTEGER NOT NULL
                    );
                    CREATE TABLE pin (
                        hostId INTEGER NOT NULL REFERENCES host(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        sha256 TEXT NOT NULL,
                        type TEXT NOT NULL CHECK (type IN ('spki', 'certificate')),
                        role TEXT NOT NULL CHECK (role IN ('current', 'backup', 'future')),
                        expiresAt INTEGER,
                        comment TEXT,
                        PRIMARY KEY (hostId, position),
                        UNIQUE (hostId, type, sha256)
                    );
                    CREATE TABLE hostVersion (
                        hostId INTEGER NOT NULL REFERENCES host(id) ON DELETE CASCADE,
                        version INTEGER NOT NULL,
                        at INTEGER NOT NULL,
                        tokenName TEXT NOT NULL,
                        change TEXT NOT NULL,
                        added TEXT NOT NULL,
                        removed TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        PRIMARY KEY (hostId, version)
                    );
                    CREATE TABLE document (
                        hostId INTEGER PRIMARY KEY REFERENCES host(id) ON DELETE CASCADE,
                        version INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        etag TEXT NOT NULL,
                        kid TEXT NOT NULL,
                        issuedAt INTEGER NOT NULL,
                        expiresAt INTEGER NOT NULL
                    );
                    CREATE TABLE signingKey (
                        kid TEXT PRIMARY KEY,
                        publicKey BLOB NOT NULL CHECK (length(publicKey) = 32),
                        firstUsedAt INTEGER NOT NULL,
                        active INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE adminToken (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL,
                        hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
                        createdAt INTEGER NOT NULL,
                        revokedAt INTEGER
                    );
                    CREATE UNIQUE INDEX adminTokenActiveName ON adminToken(name) WHERE revokedAt IS NULL;
                    """)
        }
        // Pin failure reports (issue 7). Identical reports share one row and a counter.
        migrator.registerMigration("v2-reports") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pinReport (
                        id INTEGER PRIMARY KEY,
                        fingerprint BLOB NOT NULL UNIQUE,
                        host TEXT NOT NULL,
                        notedHost TEXT NOT NULL,
                        leafPin TEXT NOT NULL,
                        matchesCurrentPin INTEGER NOT NULL,
                        enforce INTEGER NOT NULL,
                        knownPins TEXT NOT NULL,
                        chain TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        firstSeen INTEGER NOT NULL,
                        lastSeen INTEGER NOT NULL
                    );
                    CREATE INDEX pinReportLastSeen ON pinReport(lastSeen);
                    CREATE INDEX pinReportHost ON pinReport(host, lastSeen);
                    """)
        }
        // Trust documents signed offline by root keys (issue 13, PROTOCOL §6.3). Append-only: a version is never
        // changed once pushed; tokenName is the audit trail of who pushed it.
        migrator.registerMigration("v3-trust-documents") { db in
            try db.execute(
                sql: """
                    CREATE TABLE trustDocument (
                        version INTEGER PRIMARY KEY CHECK (version >= 1),
                        body BLOB NOT NULL,
                        issuedAt INTEGER NOT NULL,
                        expiresAt INTEGER NOT NULL,
                        pushedAt INTEGER NOT NULL,
                        tokenName TEXT NOT NULL
                    );
                    """)
        }
        // Reports per host and UTC day (issue 15: the console's chart of the last 30 days).
        migrator.registerMigration("v4-report-days") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pinReportDay (
                        host TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (host, day)
                    ) WITHOUT ROWID;
                    CREATE INDEX pinReportDayDay ON pinReportDay(day);
                    """)
        }
        // Scoped admin tokens (issue 16): a role and the host patterns a token may act on. Existing tokens keep
        // every right: role 'admin', hosts NULL (every host). hosts holds patterns separated by single spaces.
        migrator.registerMigration("v5-token-scopes") { db in
            try db.execute(
                sql: """
                    ALTER TABLE adminToken ADD COLUMN role TEXT NOT NULL DEFAULT 'admin'
                        CHECK (role IN ('reader', 'writer', 'admin'));
                    ALTER TABLE adminToken ADD COLUMN hosts TEXT;
                    """)
        }
        // Lock-out protection (issue 14): forced writes in the history, the monitor's last probe of each host.
        migrator.registerMigration("v6-host-probe") { db in
            try db.execute(
                sql: """
                    ALTER TABLE hostVersion ADD COLUMN forced INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE hostProbe (
                        hostId INTEGER PRIMARY KEY REFERENCES host(id) ON DELETE CASCADE,
                        at INTEGER NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('ok', 'warning', 'failing')),
                        pinsMatch INTEGER NOT NULL,
                        leafNotAfter INTEGER,
                        warnings TEXT NOT NULL,
                        addresses TEXT NOT NULL
                    );
                    """)
        }
        // The transparency log (issue 24, PROTOCOL §7.1): every published document's bytes with its RFC 6962
        // leaf hash, in publication order, and each checkpoint the log signed (with the cosignatures gathered).
        migrator.registerMigration("v7-transparency-log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE logEntry (
                        leafIndex INTEGER PRIMARY KEY CHECK (leafIndex >= 0),
                        leafHash BLOB NOT NULL CHECK (length(leafHash) = 32),
                        body BLOB NOT NULL CHECK (length(body) <= 65535)
                    );
                    CREATE TABLE logCheckpoint (
                        treeSize INTEGER PRIMARY KEY CHECK (treeSize >= 0),
                        note BLOB NOT NULL,
                        signedAt INTEGER NOT NULL
                    );
                    """)
        }
        // Which log entry holds each served document (PROTOCOL §7.3: its proof); NULL until it is logged.
        migrator.registerMigration("v8-served-log-index") { db in
            try db.execute(
                sql: """
                    ALTER TABLE document ADD COLUMN logIndex INTEGER;
                    ALTER TABLE trustDocument ADD COLUMN logIndex INTEGER;
                    """)
        }
        // Transparency-log fork reports from clients (PROTOCOL §7.4, `POST /reports` with `pinset-report: log-fork`).
        migrator.registerMigration("v9-log-fork-reports") { db in
            try db.execute(
                sql: """
                    CREATE TABLE logForkReport (
                        id INTEGER PRIMARY KEY,
                        fingerprint BLOB NOT NULL UNIQUE,
                        host TEXT,
                        document TEXT NOT NULL,
                        logOrigin TEXT NOT NULL,
                        keptCheckpoint TEXT NOT NULL,
                        refusedCheckpoint TEXT NOT NULL,
                        reportedAt TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        firstSeen INTEGER NOT NULL,
                        lastSeen INTEGER NOT NULL
                    );
                    CREATE INDEX logForkReportLastSeen ON logForkReport(lastSeen);
                    """)
        }
        // Pin documents not logged yet are those whose logIndex is NULL (a new document's is, until its entry is
        // recorded), found through a small index at start-up instead of comparing every document with its entry:
        // the one comparison here clears the logIndex of documents rewritten before this rule.
        migrator.registerMigration("v10-unlogged-documents") { db in
            try db.execute(
                sql: """
                    UPDATE document SET logIndex = NULL WHERE logIndex IS NOT NULL AND NOT EXISTS (
                        SELECT 1 FROM logEntry e WHERE e.leafIndex = document.logIndex AND e.body = document.body);
                    CREATE INDEX documentUnlogged ON document(hostId) WHERE logIndex IS NULL;
                    """)
        }
        // Forks of this server's own log (PROTOCOL §7.2, issue 35): a checkpoint signed by the log key that is not
        // one of this tree's, with the server's own checkpoint beside it; shown until an administrator acknowledges.
        migrator.registerMigration("v11-log-forks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE logFork (
                        id INTEGER PRIMARY KEY,
                        foreignText BLOB NOT NULL UNIQUE,
                        foreignNote BLOB NOT NULL,
                        ownNote BLOB NOT NULL,
                        source TEXT NOT NULL,
                        detectedAt INTEGER NOT NULL,
                        acknowledgedAt INTEGER
                    );
                    """)
        }
        // Start-up reads every entry's leaf hash in index order (`LogState.preload`, `LogTable.forEachLeafHash`): from
        // the table that walks every entry's body too (a GB at a million entries); from this covering index it reads
        // 45 bytes a row. Built once, on the first start of a binary that has it (issue 36 item 6).
        migrator.registerMigration("v12-log-leaf-hash-index") { db in
            try db.execute(sql: "CREATE INDEX logEntryLeafHash ON logEntry(leafIndex, leafHash)")
        }
        return migrator
    }
}
