import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TransparencyLog

extension PinReportService {
    /// The largest checkpoint a fork report may carry: a checkpoint with tens of cosignatures is a few KiB.
    static let maxForkCheckpointBytes = 16 * 1024

    /// The body a client posts when a transparency log forked (docs/CLIENT-LOG.md, `LogForkReport`), as received.
    struct LogForkBody: Decodable {
        var report: String
        var dateTime: String
        var document: String
        var logOrigin: String
        var keptCheckpoint: String
        var refusedCheckpoint: String

        private enum CodingKeys: String, CodingKey {
            case report = "pinset-report", dateTime = "date-time", document, logOrigin = "log-origin"
            case keptCheckpoint = "kept-checkpoint", refusedCheckpoint = "refused-checkpoint"
        }
    }

    /// The `pinset-report` member of a body, which tells a pinset report from a TrustKit one (which has none).
    struct ReportKind: Decodable {
        var kind: String?

        private enum CodingKeys: String, CodingKey {
            case kind = "pinset-report"
        }
    }

    /// Checks and stores a log-fork report; identical ones share one row with a counter.
    ///
    /// - Throws: 400 when a field is missing or mistyped, `date-time` is not RFC 3339, `document` is neither
    ///   `/pins/<host>` nor `/trust/<version>`, or a checkpoint is not a signed note of a checkpoint of
    ///   `log-origin` (at most ``maxForkCheckpointBytes`` each).
    func submitLogFork(json: [UInt8], now: Date) throws(ServiceError) -> Stored {
        let body: LogForkBody
        do {
            body = try JSONDecoder().decode(LogForkBody.self, from: Data(json))
        } catch {
            throw ServiceError(.badRequest, "the body is not a log-fork report: \(Self.describe(error))")
        }
        guard RFC3339.parse(body.dateTime) != nil else {
            throw ServiceError(.badRequest, "date-time must be an RFC 3339 time such as 2026-11-25T12:00:00Z")
        }
        let host = try Self.forkDocumentHost(body.document)
        for (name, note) in [("kept-checkpoint", body.keptCheckpoint), ("refused-checkpoint", body.refusedCheckpoint)] {
            try Self.checkCheckpoint(note, name: name, origin: body.logOrigin)
        }
        let entry = LogForkReportEntry(
            host: host, document: body.document, logOrigin: body.logOrigin, keptCheckpoint: body.keptCheckpoint,
            refusedCheckpoint: body.refusedCheckpoint, reportedAt: body.dateTime, count: 1, firstSeen: now,
            lastSeen: now)
        let fingerprint = SHA256Digest.hash(
            Array(
                [body.logOrigin, body.document, body.keptCheckpoint, body.refusedCheckpoint].joined(separator: "\0")
                    .utf8))
        let seconds = StoredTime.seconds(now)
        let cutoff = StoredTime.seconds(now.addingTimeInterval(-configuration.retention))
        let maxRows = configuration.maxRows
        let count = try store.serializedWrite { db in
            var count = 1
            try db.inTransaction {
                count = try LogForkReportTable.record(
                    db, entry, fingerprint: fingerprint, seconds: seconds, cutoff: cutoff, maxRows: maxRows)
                return .commit
            }
            return count
        }
        return Stored(host: host ?? "", duplicate: count > 1)
    }

    /// The reported log forks, latest first; `host` keeps those about that host's documents.
    public func logForks(host: String?, since: Date?) throws(ServiceError) -> [LogForkReportEntry] {
        try store.read { db in try LogForkReportTable.all(db, host: host, since: since) }
    }

    /// The host of `/pins/<host>`, `nil` for `/trust/<version>`.
    /// - Throws: 400 for any other path.
    private static func forkDocumentHost(_ document: String) throws(ServiceError) -> String? {
        if document.hasPrefix("/trust/"), let version = Int(document.dropFirst("/trust/".count)), version >= 1,
            "/trust/\(version)" == document
        {
            return nil
        }
        guard document.hasPrefix("/pins/"), let host = try? HostName.normalize(String(document.dropFirst(6))) else {
            throw ServiceError(
                .badRequest, "document must be /pins/<host> or /trust/<version>, not \"\(document.prefix(80))\"")
        }
        return host
    }

    /// Checks that `note` is a signed note of a checkpoint whose origin is `origin`.
    private static func checkCheckpoint(_ note: String, name: String, origin: String) throws(ServiceError) {
        guard note.utf8.count <= maxForkCheckpointBytes else {
            throw ServiceError(.badRequest, "\(name) is over \(maxForkCheckpointBytes) bytes")
        }
        let checkpoint: Checkpoint
        do {
            checkpoint = try Checkpoint(text: try SignedNote(parsing: Array(note.utf8)).text)
        } catch {
            throw ServiceError(.badRequest, "\(name) is not a signed checkpoint note: \(error.description)")
        }
        guard checkpoint.origin == origin else {
            throw ServiceError(
                .badRequest, "\(name) is a checkpoint of \"\(checkpoint.origin.prefix(80))\", not of log-origin")
        }
    }
}
