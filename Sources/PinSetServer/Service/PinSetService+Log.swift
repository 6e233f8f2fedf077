import Foundation
internal import GRDB
import PinSetCore
import PinSetLogServer
import PinSetStorage

extension PinSetService {
    /// How long a write waits for the checkpoint that includes it before it is answered `503` (it stays
    /// stored and logged, and is served once a checkpoint is signed).
    static let publicationWait: TimeInterval = 30

    /// Appends `document`, just stored as `hostId`'s current document, to the transparency log in the caller's
    /// transaction and records its entry; `nil` without a log.
    func logDocument(_ db: Database, hostId: Int64, _ document: PublishedDocument) throws -> LogAppend? {
        guard let log else { return nil }
        let append = try log.log.append([document.body], in: db)
        try ServedLogIndexTable.setHost(db, hostId: hostId, leafIndex: append.firstIndex)
        return append
    }

    /// After COMMIT, still inside the serialized section (so publication follows commit order): without a log,
    /// publishes the documents now; with one, hands them to the log's publisher, which serves each once a signed
    /// checkpoint includes it. Returns what to wait on, outside the serialized section.
    func published(_ documents: [(document: PublishedDocument, append: LogAppend?)]) -> LogPublisher.Ticket? {
        guard let log else {
            for (document, _) in documents { publish(document) }
            return nil
        }
        let publish = self.publish
        return log.committed(
            documents.compactMap(\.append),
            documents.compactMap { document, append in
                append.map { append in
                    LogPublisher.Pending(
                        key: .pins(document.host), leafIndex: append.firstIndex, etag: document.etag,
                        publish: { publish(document) })
                }
            })
    }

    /// Waits, outside the serialized section, until the write's documents are served with their proofs.
    /// - Throws: `503` when no checkpoint was signed within ``publicationWait`` (the write is stored and logged).
    static func waitUntilServed(_ ticket: LogPublisher.Ticket?) throws(ServiceError) {
        guard let ticket, !ticket.wait(seconds: publicationWait) else { return }
        throw ServiceError(
            .unavailable,
            "the write is stored and logged, but the transparency log signed no checkpoint for it within \(Int(publicationWait)) s, so it is not served yet; it will be once one is signed (details in the server log)"
        )
    }
}
