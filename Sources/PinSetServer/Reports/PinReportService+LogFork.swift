import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import PinSetStorage
import TransparencyLog

extension PinReportService {
    /// The largest checkpoint a fork report may carry: a checkpoint with tens of cosignatures is a few KiB.
    static let maxForkCheckpointBytes = 16 * 1024

    /// The body a client posts when a transparency log forked, as received: PROTOCOL §3's members (`origin`,
    /// `held`, `new`, `proof`), or the earlier client's (`log-origin`, `kept-checkpoint`, `refused-checkpoint`,
    /// docs/CLIENT-LOG.md); `document` and `date-time` are optional beside §3's.
    struct LogForkBody: Decodable {
        var report: String
        var dateTime: String?
        var document: String?
        var origin: String?
        var logOrigin: String?
        var held: String?
        var keptCheckpoint: String?
        var new: String?
        var refusedCheckpoint: String?
        var proof: [String]?

        private enum CodingKeys: String, CodingKey {
            case report = "pinset-report", dateTime = "date-time", document, logOrigin = "log-origin"
            case keptCheckpoint = "kept-checkpoint", refusedCheckpoint = "refused-checkpoint"
            case origin, held, new, proof
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
        let heldName = body.held != nil ? "held" : "kept-checkpoint"
        let newName = body.new != nil ? "new" : "refused-checkpoint"
        guard let origin = body.origin ?? body.logOrigin else {
            throw ServiceError(.badRequest, "the body is not a log-fork report: missing field \"origin\"")
        }
        guard let heldText = body.held ?? body.keptCheckpoint, let newText = body.new ?? body.refusedCheckpoint else {
            throw ServiceError(.badRequest, "the body is not a log-fork report: missing field \"held\" or \"new\"")
        }
        let dateTime = body.dateTime ?? RFC3339.format(now)
        guard RFC3339.parse(dateTime) != nil else {
            throw ServiceError(.badRequest, "date-time must be an RFC 3339 time such as 2026-11-25T12:00:00Z")
        }
        guard (body.proof?.count ?? 0) <= 64 else { throw ServiceError(.badRequest, "proof has over 64 hashes") }
        let document = body.document ?? ""
        let host = document.isEmpty ? nil : try Self.forkDocumentHost(document)
        var notes: [SignedNote] = []
        for (name, note) in [(heldName, heldText), (newName, newText)] {
            notes.append(try Self.checkCheckpoint(note, name: name, origin: origin))
        }
        // PROTOCOL §3: only reports whose notes verify under this server's log key are stored; a foreign checkpoint
        // among them is a fork of this log (§7.2).
        guard let forks, forks.isSignedByLog(notes[0]), forks.isSignedByLog(notes[1]) else {
            throw ServiceError(
                .badRequest,
                "the report's checkpoints are not both signed by this server's log key for \(origin.prefix(80))")
        }
        for note in notes { forks.consider(note, source: "report", at: now) }
        let entry = LogForkReportEntry(
            host: host, document: document, logOrigin: origin, keptCheckpoint: heldText,
            refusedCheckpoint: newText, reportedAt: dateTime, count: 1, firstSeen: now, lastSeen: now)
        let fingerprint = SHA256Digest.hash(
            Array([origin, document, heldText, newText].joined(separator: "\0").utf8))
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
    package func logForks(host: String?, since: Date?) throws(ServiceError) -> [LogForkReportEntry] {
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

    /// Checks that `note` is a signed note of a checkpoint whose origin is `origin`, and returns it.
    private static func checkCheckpoint(_ note: String, name: String, origin: String) throws(ServiceError)
        -> SignedNote
    {
        guard note.utf8.count <= maxForkCheckpointBytes else {
            throw ServiceError(.badRequest, "\(name) is over \(maxForkCheckpointBytes) bytes")
        }
        let checkpoint: Checkpoint
        let signed: SignedNote
        do {
            signed = try SignedNote(parsing: Array(note.utf8))
            checkpoint = try Checkpoint(text: signed.text)
        } catch {
            throw ServiceError(.badRequest, "\(name) is not a signed checkpoint note: \(error.description)")
        }
        guard checkpoint.origin == origin else {
            throw ServiceError(
                .badRequest,
                "\(name) is a checkpoint of \"\(checkpoint.origin.prefix(80))\", not of the report's origin")
        }
        return signed
    }
}
