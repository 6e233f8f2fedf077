/// A rule of the protocol that a pin set breaks. Compare ``code``, not the message.
public struct PinSetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which rule was broken.
    public enum Code: String, Sendable, Equatable {
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

    /// The rule broken.
    public let code: Code
    /// What the caller should fix. Never contains secrets.
    public let detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}
