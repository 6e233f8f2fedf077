import CodedErrors

/// Why a cryptographic operation failed. Compare `code`, not the message.
///
/// Messages name files and tell the caller what to fix; they never contain key material.
public typealias CryptoError = CodedError<CryptoErrorCode>

/// The kind of failure.
public enum CryptoErrorCode: String, ErrorCode {
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
