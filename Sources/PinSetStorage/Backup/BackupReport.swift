/// What a backup check found in a good backup.
package struct BackupReport: Sendable, Equatable, CustomStringConvertible {
    /// The file checked.
    package var path: String
    /// Its size in bytes.
    package var bytes: Int
    /// The migrations applied in it, in order.
    package var migrations: [String]
    /// Migrations this pinset knows that the file lacks (a server migrates them at start).
    package var pendingMigrations: [String]
    /// Hosts (retired ones included).
    package var hosts: Int
    /// Current documents whose signature verified against a key the database lists.
    package var verifiedDocuments: Int
    /// Signing keys listed.
    package var keys: Int
    /// Active (not revoked) admin tokens.
    package var activeTokens: Int
    /// Trust documents stored (PROTOCOL §6), 0 without root keys.
    package var trustDocuments: Int = 0

    package var description: String {
        var text =
            "\(path): integrity ok; schema \(migrations.last ?? "none") (\(migrations.count) migrations); "
            + "\(hosts) host(s), \(verifiedDocuments) document(s) verified against \(keys) key(s); "
            + "\(activeTokens) active token(s); \(trustDocuments) trust document(s); \(bytes) bytes"
        if !pendingMigrations.isEmpty {
            text += "; a server will apply \(pendingMigrations.joined(separator: ", ")) when it opens this file"
        }
        return text
    }
}
