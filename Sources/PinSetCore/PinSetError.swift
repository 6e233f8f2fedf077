// Re-exported: every module that names a `CodedError`'s `Code` (`PinSetError.Code`, `DocumentRejection.Code`) in
// its own signatures, and every app, sees the shape without importing it (as PinSetClient re-exports PinSetCore).
@_exported import CodedErrors

/// A rule of the protocol that a pin set breaks. Compare `code`, not the message.
public typealias PinSetError = CodedError<PinSetErrorCode>

/// Which rule was broken.
public enum PinSetErrorCode: String, ErrorCode {
    /// A pin's hash is not standard base64 of 32 bytes, or its comment is too long.
    case invalidPin
    /// The host is not a normalised DNS name.
    case invalidHost
    /// The document or payload is not a valid pin set (structure, version).
    case invalidDocument
    /// The same pin appears twice in one set.
    case duplicatePin
    /// A pin's `expiresAt` is not in the future.
    case expiredPin
    /// The set holds more than ``PinSet/maxPins`` pins.
    case tooManyPins
    /// An enforcing set lacks two distinct pins, one of them a backup (PROTOCOL §4).
    case backupRuleViolated
    /// The `reportUri` is not an absolute http(s) URL with a host.
    case invalidReportURI
    /// A live address of the host serves a chain that no pin of the new set matches (server pre-flight).
    case wouldLockOut = "would-lock-out"
    /// The host could not be probed and the server requires a pre-flight check.
    case preflightUnreachable = "preflight-unreachable"
    /// `"capture": "leaf"` found no single key served by the host.
    case captureFailed = "capture-failed"
    /// The signed document would be larger than ``SignedDocument/maxSignedBytes`` (server, before signing).
    case documentTooLarge = "document-too-large"
}
