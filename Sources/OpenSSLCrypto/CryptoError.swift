/// Why a cryptographic operation failed. Compare ``code``, not the message.
///
/// Messages name files and tell the caller what to fix; they never contain key material.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Equatable {
        /// The key file could not be opened or read.
        case keyFileUnreadable
        /// The key file is readable by others, or by a group this process is not in: it must be mode 0600 or 0400,
        /// or 0640 or 0440 with the server's own group.
        case insecureKeyPermissions
        /// The key parsed, but it is not an Ed25519 private key.
        case notAnEd25519Key
        /// The bytes are not the PEM (or DER) that was expected.
        case invalidPEM
        /// A certificate could not be parsed.
        case invalidCertificate
        /// The file to create already exists.
        case fileExists
        /// The file could not be written.
        case fileUnwritable
        /// OpenSSL reported an internal failure.
        case openSSL
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and how to fix it. Never contains key material.
    public let detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}
