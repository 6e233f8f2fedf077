#!/usr/bin/env python3
"""bench/put_floor.py: the storage floor under B6, without HTTP, JSON or signing. Prints transactions per second.

    put_floor.py pinset  N DB_FILE SCHEMA_FILE DOC_FILE   one pinset PUT's statements per transaction,
                                                          on pinset's own schema
    put_floor.py minimal N DB_FILE DOC_FILE               the least an audited write can store: one history
                                                          row and one current document per transaction

Runs on Python's sqlite3 module over the system libsqlite3, like the B6 baseline in `journal_mode=WAL` and
`synchronous=FULL`, with prepared statements reused from the module's statement cache (pinset reuses its
statements too; the sqlite3 CLI would re-parse every statement, which costs more than the commit). Rows have
the sizes a real PUT writes: the signed document in DOC_FILE and the payload inside it. The `pinset` statements
are those of AdminTokenTable.activeHashes (the token check), HostRecords.fetch and HostRecords.save, in that order,
with two pins per version as bench/put.lua sends.
"""
import base64
import json
import os
import sqlite3
import sys
import time

mode, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
doc = open(sys.argv[5] if mode == "pinset" else sys.argv[4], "rb").read().strip()
payload_b64 = json.loads(doc)["payload"]
payload = base64.urlsafe_b64decode(payload_b64 + "=" * (-len(payload_b64) % 4))
host = "b6.bench.example"
db = sqlite3.connect(path, isolation_level=None, cached_statements=64)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=FULL")
pins = [base64.b64encode(os.urandom(32)).decode() for _ in range(2 * n)]

if mode == "pinset":
    schema = open(sys.argv[4]).read()
    db.executescript(schema.replace("CREATE TABLE grdb_migrations", "CREATE TABLE IF NOT EXISTS grdb_migrations"))
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("INSERT INTO adminToken (name, hash, createdAt) VALUES ('bench', ?, 0)", (os.urandom(32),))
    db.execute("INSERT INTO host (id, name, version, includeSubdomains, enforce, createdAt, updatedAt) "
               "VALUES (1, ?, 1, 0, 1, 0, 0)", (host,))
    db.execute("INSERT INTO document (hostId, version, body, etag, kid, issuedAt, expiresAt) "
               "VALUES (1, 1, ?, '\"e1\"', 'kid', 0, 0)", (doc,))
    start = time.perf_counter()
    for v in range(2, n + 2):
        a, b = pins[2 * v - 4], pins[2 * v - 3]
        db.execute("SELECT name, hash FROM adminToken WHERE revokedAt IS NULL").fetchall()
        db.execute("BEGIN IMMEDIATE")
        db.execute("SELECT h.*, d.version AS dVersion, d.body, d.kid, d.issuedAt, d.expiresAt FROM host h "
                   "JOIN document d ON d.hostId = h.id WHERE h.name = ?", (host,)).fetchone()
        db.execute("SELECT * FROM pin WHERE hostId = ? ORDER BY position", (1,)).fetchall()
        db.execute("UPDATE host SET version = ?, includeSubdomains = ?, enforce = ?, reportUri = ?, retired = ?, "
                   "updatedAt = ? WHERE id = ?", (v, 0, 1, None, 0, v, 1))
        db.execute("DELETE FROM pin WHERE hostId = ?", (1,))
        for position, (sha, role) in enumerate(((a, "current"), (b, "backup"))):
            db.execute("INSERT INTO pin (hostId, position, sha256, type, role, expiresAt, comment) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (1, position, sha, "spki", role, None, None))
        db.execute("INSERT INTO hostVersion (hostId, version, at, tokenName, change, added, removed, payload) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (1, v, v, "bench", "replace", f'["{a}","{b}"]', "[]", payload))
        db.execute("INSERT INTO document (hostId, version, body, etag, kid, issuedAt, expiresAt) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(hostId) DO UPDATE SET version = excluded.version, "
                   "body = excluded.body, etag = excluded.etag, kid = excluded.kid, issuedAt = excluded.issuedAt, "
                   "expiresAt = excluded.expiresAt", (1, v, doc, f'"e{v}"', "kid", v, v))
        db.execute("COMMIT")
elif mode == "minimal":
    db.execute("CREATE TABLE history (hostId INTEGER, version INTEGER, payload BLOB, PRIMARY KEY (hostId, version))"
               " WITHOUT ROWID")
    db.execute("CREATE TABLE current (hostId INTEGER PRIMARY KEY, version INTEGER, body BLOB)")
    start = time.perf_counter()
    for v in range(1, n + 1):
        db.execute("BEGIN")
        db.execute("INSERT INTO history VALUES (?, ?, ?)", (1, v, payload))
        db.execute("INSERT OR REPLACE INTO current VALUES (?, ?, ?)", (1, v, doc))
        db.execute("COMMIT")
else:
    sys.exit(f"unknown mode {mode}")
print(n / (time.perf_counter() - start))
