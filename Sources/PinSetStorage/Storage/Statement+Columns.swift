internal import GRDB
import GRDBSQLite

extension Statement {
    /// The bytes of column `index` of the row the statement is on: SQLite's own buffer, valid until the next step,
    /// with no `Data` made (start-up's bulk reads: ``HostRecords/forEachDocument(_:_:)``,
    /// ``LogTable/forEachLeafHash(_:from:_:)``). TEXT comes back as its UTF-8 bytes, unconverted (the database is
    /// UTF-8); NULL as no bytes.
    /// - Throws: `SQLITE_NOMEM` when SQLite could not hand the value over.
    func columnBytes(_ index: Int32) throws -> UnsafeRawBufferPointer {
        let start = sqlite3_column_blob(sqliteStatement, index)
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        guard let start else {
            guard count == 0, sqlite3_errcode(sqlite3_db_handle(sqliteStatement)) != SQLITE_NOMEM else {
                throw DatabaseError(resultCode: .SQLITE_NOMEM, message: "reading column \(index) of a row")
            }
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: start, count: count)
    }
}
