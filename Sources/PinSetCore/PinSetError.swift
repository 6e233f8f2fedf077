// Re-exported: every module that names a ``CodedError``'s `Code` (`PinSetError.Code`, `DocumentRejection.Code`) in
// its own signatures, and every app, sees the shape without importing it (as PinSetClient re-exports PinSetCore).
@_exported import CodedErrors

/// A rule of the protocol that a pin set breaks. Compare ``code``, not the message.
public typealias PinSetError = CodedError<PinSetErrorCode>

/// Which rule was broken.
public enum PinSetErrorCode: String, ErrorCode {
    case invalidPin
    case invalidHost
    case invalidDocument
    case duplicatePin
    case expiredPin
    case tooManyPins
    case backupRuleViolated
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
