/// What a backup check found in a good backup.
public struct BackupReport: Sendable, Equatable, CustomStringConvertible {
    /// The file checked.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int
    /// The migrations applied in it, in order.
    public var migrations: [String]
    /// Migrations this pinset knows that the file lacks (a server migrates them at start).
    public var pendingMigrations: [String]
    /// Hosts (retired ones included).
    public var hosts: Int
    /// Current documents whose signature verified against a key the database lists.
    public var verifiedDocuments: Int
    /// Signing keys listed.
    public var keys: Int
    /// Active (not revoked) admin tokens.
    public var activeTokens: Int
    /// Trust documents stored (PROTOCOL §6), 0 without root keys.
    public var trustDocuments: Int = 0

    public var description: String {
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
