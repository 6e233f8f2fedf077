import PinSetAdminAPI
import PinSetLogServer
import PinSetStorage

/// The result of a successful write: the new state, the document that was published, and whether the
/// write created the host (`201`) rather than changed it (`200`).
///
/// Its JSON is the write's answer: the members of ``HostDetail`` with the pre-flight report, when one ran, as a
/// `preflight` member.
package struct WriteOutcome: Sendable, Encodable {
    /// The host's new state.
    package let detail: HostDetail
    /// The newly signed document (already passed to `publish`).
    package let document: PublishedDocument
    /// `true` when the host did not exist or had been retired before this write.
    package let created: Bool
    /// The pre-flight check of the write, when one ran.
    package var preflight: PreflightReport?
    /// The log entry of ``document``, when the server keeps a transparency log.
    var logAppend: LogAppend?

    /// Creates an outcome.
    package init(detail: HostDetail, document: PublishedDocument, created: Bool) {
        self.detail = detail
        self.document = document
        self.created = created
    }

    private enum CodingKeys: String, CodingKey { case preflight }

    /// The answer's JSON: ``detail``'s members and `preflight`.
    package func encode(to encoder: any Encoder) throws {
        try detail.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(preflight, forKey: .preflight)
    }

    /// The answer's bytes, as ``AdminJSON``'s encoder writes them: without a report (the usual write), through
    /// ``HostDetail/encodedJSON()``, the same bytes without the encoder's cost.
    package func encodedJSON() throws -> [UInt8] {
        guard preflight != nil else { return detail.encodedJSON() }
        return [UInt8](try AdminJSON.encoder.encode(self))
    }
}
