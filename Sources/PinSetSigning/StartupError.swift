import CodedErrors
import PKCS11

/// Why the server refused to start, in one line that says what to fix (`detail`, also its
/// description); names files and key ids, never key material.
public typealias StartupError = CodedError<StartupErrorCode>

/// The kind of refusal; tests compare it, not the message.
public enum StartupErrorCode: String, ErrorCode {
    /// `--dev` was asked to create a signing key for a database that already holds signed documents.
    case keyMissingForSignedDatabase
    /// The signing key cannot be opened: PKCS#11 module, token, PIN, key object or key type (the line says which).
    case signingKeyUnusable
    /// The private key on the token is extractable or not sensitive, and `--allow-extractable-key` was not given.
    case extractableKey
    /// The transparency log's key (`--log-key`) cannot be loaded, is the signing key, or the origin is not a
    /// valid note key name.
    case logKeyUnusable
    /// The database's integrity check failed, or stored documents do not match their hashes, and
    /// `--serve-damaged` was not given.
    case damagedDatabase
    /// The clock is more than the document lifetime ahead of the newest stored document, and `--trust-clock`
    /// was not given.
    case clockAhead
}

extension CodedError where CodeType == StartupErrorCode {
    /// A refusal of kind `code`; `description` must name no key material.
    public init(code: Code, description: String) { self.init(code, description) }

    /// `--dev` refuses to mint a key for a database that some key has already signed for.
    package static func keyMissingForSignedDatabase(keyPath: String, databasePath: String, kids: [String])
        -> StartupError
    {
        StartupError(
            code: .keyMissingForSignedDatabase,
            description:
                "the signing key \(keyPath) does not exist, but \(databasePath) already holds documents signed by kid \(kids.joined(separator: ", ")); --dev creates a key only for a database that has never signed anything. Pass the key that signed them with --key (or restore it from a backup)"
        )
    }

    /// A key named by a PKCS#11 URI could not be opened.
    static func signingKey(_ location: String, _ error: PKCS11Error) -> StartupError {
        StartupError(code: .signingKeyUnusable, description: "signing key \(location): \(error.detail)")
    }

    /// The key on the token could be copied off it.
    static func extractableKey(_ uri: PKCS11URI) -> StartupError {
        StartupError(
            code: .extractableKey,
            description:
                "the signing key \(uri) can be copied off the token (CKA_EXTRACTABLE true or CKA_SENSITIVE false): generate a non-extractable key with `pinset keygen --pkcs11 URI`, or start with --allow-extractable-key to accept it"
        )
    }
}
