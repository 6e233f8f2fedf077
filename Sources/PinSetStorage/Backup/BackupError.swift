import CodedErrors

/// Why a backup could not be made or a backup file failed its check. Compare `code`; `detail` is for people
/// and says what to do.
package typealias BackupError = CodedError<BackupErrorCode>

/// The kind of failure.
package enum BackupErrorCode: String, ErrorCode {
    /// The file does not exist or cannot be read or written.
    case io
    /// The file is not an SQLite database.
    case notSQLite
    /// The file is shorter than its own header says: it was cut short.
    case truncated
    /// SQLite's integrity check found damage, or SQLite refused the file as malformed.
    case corrupt
    /// An SQLite database, but not a pinset one, or one made by a newer pinset.
    case schema
    /// A document is missing, does not verify against the listed keys, or disagrees with its host row.
    case documents
}
