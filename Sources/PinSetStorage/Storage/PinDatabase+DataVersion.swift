internal import GRDB

extension PinDatabase {
    /// SQLite's `PRAGMA data_version` on this store's one writer connection: it changes whenever another
    /// connection (the server, another process) commits to the database. Cheap (no lock, no transaction): for
    /// watchers such as `pinset export --watch` that poll for committed writes.
    package func dataVersion() throws(ServiceError) -> Int {
        try serializedWrite { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}
