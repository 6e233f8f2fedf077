/// Why the server refused to start, in one line that says what to fix.
public struct StartupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of refusal; tests compare it, not the message.
    public enum Code: String, Sendable, Equatable {
        /// `--dev` was asked to create a signing key for a database that already holds signed documents.
        case keyMissingForSignedDatabase
    }

    /// The kind of refusal.
    public let code: Code
    /// What happened and what to do; names files and key ids, never key material.
    public let description: String

    /// `--dev` refuses to mint a key for a database that some key has already signed for.
    static func keyMissingForSignedDatabase(keyPath: String, databasePath: String, kids: [String]) -> StartupError {
        StartupError(
            code: .keyMissingForSignedDatabase,
            description:
                "the signing key \(keyPath) does not exist, but \(databasePath) already holds documents signed by kid \(kids.joined(separator: ", ")); --dev creates a key only for a database that has never signed anything. Pass the key that signed them with --key (or restore it from a backup)"
        )
    }
}
