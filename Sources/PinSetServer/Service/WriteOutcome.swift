import PinSetAdminAPI

/// The result of a successful write: the new state, the document that was published, and whether the
/// write created the host (`201`) rather than changed it (`200`).
public struct WriteOutcome: Sendable {
    /// The host's new state.
    public let detail: HostDetail
    /// The newly signed document (already passed to `publish`).
    public let document: PublishedDocument
    /// `true` when the host did not exist or had been retired before this write.
    public let created: Bool
    /// The pre-flight check of the write, when one ran.
    public var preflight: PreflightReport?

    /// Creates an outcome.
    public init(detail: HostDetail, document: PublishedDocument, created: Bool) {
        self.detail = detail
        self.document = document
        self.created = created
    }
}
