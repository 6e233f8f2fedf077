import Foundation
import PinSetCore
import TransparencyLog

/// What a client tells the application and its report URI when a transparency log forked (PROTOCOL §7.4): two
/// checkpoints of one log, both signed by the log, that cannot both be true. Someone who holds the log key showed
/// this client another history than the one it saw before (a split view).
///
/// The JSON body posted to the report URI (docs/CLIENT-LOG.md):
///
/// ```json
/// {"pinset-report":"log-fork","date-time":"2026-11-25T12:00:00Z","document":"/pins/api.example.com",
///  "origin":"pins.example.com/log","held":"<signed note>","new":"<signed note>","proof":["<base64>",…],
///  "log-origin":"pins.example.com/log","kept-checkpoint":"<signed note>","refused-checkpoint":"<signed note>"}
/// ```
///
/// PROTOCOL §3's members (`origin`, `held`, `new`, `proof`) and, with the same values, the earlier ones
/// (`log-origin`, `kept-checkpoint`, `refused-checkpoint`) that servers before issue 35 read.
///
/// Each checkpoint is the whole signed note as served (text, blank line, signature lines), so anyone holding the
/// log's public key can check both signatures. Holds no secret.
public struct LogForkReport: Codable, Sendable, Hashable {
    /// Always `log-fork`: tells this body from a pin failure report sent to the same URI.
    public var report: String
    /// When the fork was seen, RFC 3339 UTC.
    public var dateTime: String
    /// The path of the document whose proof carried the refused checkpoint: `/pins/<host>` or `/trust/<version>`.
    public var document: String
    /// The log's origin line.
    public var logOrigin: String
    /// The checkpoint accepted before, which the client keeps (a signed note, UTF-8).
    public var keptCheckpoint: String
    /// The checkpoint refused (a signed note, UTF-8).
    public var refusedCheckpoint: String
    /// PROTOCOL §3's name of ``logOrigin``.
    public var origin: String?
    /// PROTOCOL §3's name of ``keptCheckpoint``: the checkpoint held.
    public var held: String?
    /// PROTOCOL §3's name of ``refusedCheckpoint``: the new checkpoint.
    public var new: String?
    /// PROTOCOL §3: the consistency proof that fails between the two, from the smaller tree to the larger
    /// (C2SP/RFC 6962 order), each 32-byte hash in standard padded base64. It leads to the larger checkpoint's root
    /// and gives another root than the smaller checkpoint's at that size. Empty when the sizes are equal (two notes
    /// of one size with different roots are evidence by themselves), when the origins differ, or when it was not
    /// kept.
    public var proof: [String]?

    /// The value of ``report``.
    public static let kind = "log-fork"

    private enum CodingKeys: String, CodingKey {
        case report = "pinset-report", dateTime = "date-time", document, logOrigin = "log-origin"
        case keptCheckpoint = "kept-checkpoint", refusedCheckpoint = "refused-checkpoint"
        case origin, held, new, proof
    }

    /// Creates the report of `fork`, seen at `date` on the proof of `document`.
    /// - Parameters:
    ///   - fork: both signed notes.
    ///   - document: the path whose proof carried the refused checkpoint.
    ///   - date: when the fork was seen.
    ///   - proof: the consistency proof that failed, smaller tree to larger (see ``proof``); default none, which is
    ///     right for two checkpoints of one size.
    public init(_ fork: LogFork, document: String, at date: Date, proof: [[UInt8]] = []) {
        report = Self.kind
        dateTime = RFC3339.format(date)
        self.document = document
        logOrigin = (try? Checkpoint(text: fork.kept.text).origin) ?? ""
        keptCheckpoint = String(decoding: fork.kept.bytes, as: UTF8.self)
        refusedCheckpoint = String(decoding: fork.refused.bytes, as: UTF8.self)
        origin = logOrigin
        held = keptCheckpoint
        new = refusedCheckpoint
        self.proof = proof.map { Base64.encode($0) }
    }

    /// The JSON body, without escaped slashes.
    public func encodedJSON() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? [UInt8](encoder.encode(self))) ?? []
    }
}
