import Foundation
import Logging
import PinSetCore
import TransparencyLog

/// A C2SP tlog-witness (PROTOCOL §7.2): cosigns a log's checkpoint only if it is consistent with the newest one
/// it cosigned for that log before, and keeps that newest one in its own SQLite file.
package final class Witness: Sendable {
    /// What the witness answers to one request.
    package struct Answer: Sendable, Equatable {
        /// The HTTP status.
        package let status: Int
        /// `Content-Type`.
        package let contentType: String
        /// The body.
        package let body: [UInt8]

        static func text(_ status: Int, _ message: String) -> Answer {
            Answer(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
        }
    }

    private let signer: NoteSigner
    private let logs: [String: [VerifierKey]]
    private let store: WitnessStore
    private let crypto: any TrustCrypto
    private let hasher: MerkleHasher
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// Creates a witness.
    /// - Parameters:
    ///   - signer: the witness key (type 0x04, tlog-cosignature/v1).
    ///   - logs: the logs followed, by their vkeys (type 0x01); a log is known by its key name, the origin.
    ///   - databasePath: the witness's own SQLite file (created if missing).
    ///   - crypto: SHA-256 and Ed25519.
    ///   - clock: the cosignatures' time; default the system clock.
    ///   - logger: where conflicts are logged, with both notes (label `pinset.witness` by default).
    /// - Throws: when a key has the wrong type or the database cannot be opened.
    package init(
        signer: NoteSigner, logs: [VerifierKey], databasePath: String, crypto: any TrustCrypto,
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "pinset.witness")
    ) throws {
        guard signer.key.type == .cosignature else {
            throw LogError(.malformed, "a witness key signs cosignatures (note type 0x04)")
        }
        for log in logs where log.type != .ed25519 {
            throw LogError(.malformed, "the log key \(log.name) is not an Ed25519 note key (type 0x01)")
        }
        self.signer = signer
        self.logs = Dictionary(grouping: logs, by: \.name)
        self.store = try WitnessStore(path: databasePath)
        self.crypto = crypto
        self.hasher = MerkleHasher(crypto: crypto)
        self.clock = clock
        self.logger = logger
    }

    /// The witness's vkey, for log operators and client policies.
    package var verifierKey: VerifierKey { signer.key }

    /// `POST /add-checkpoint`, in the order C2SP tlog-witness gives its checks.
    package func addCheckpoint(_ body: [UInt8]) -> Answer {
        let request: AddCheckpointRequest
        let checkpoint: Checkpoint
        do {
            request = try AddCheckpointRequest(parsing: body)
            checkpoint = try Checkpoint(text: request.checkpoint.text)
        } catch {
            return .text(400, error.detail)
        }
        guard let keys = logs[checkpoint.origin] else { return .text(404, "unknown log origin") }
        do {
            guard !(try request.checkpoint.verify(keys, crypto: crypto)).isEmpty else {
                return .text(403, "no signature of a trusted key for this origin")
            }
        } catch {
            return .text(403, error.detail)
        }
        guard request.oldSize <= checkpoint.size else { return .text(400, "the old size is over the checkpoint size") }
        do {
            let (answer, conflict) = try store.update { db -> (Answer, Conflict?) in
                let latest = try WitnessStore.latest(db, origin: checkpoint.origin)
                let stored = latest?.size ?? 0
                guard request.oldSize == stored else { return (Self.sizeConflict(stored), nil) }
                if checkpoint.size == 0, checkpoint.rootHash != hasher.emptyRoot {
                    return (.text(422, "a checkpoint of size 0 has the root of the empty tree"), nil)
                }
                // tlog-witness: same size, another root is a 409 (a fork, since the note verified under the log key).
                if let latest, checkpoint.size == latest.size, checkpoint.rootHash != latest.rootHash {
                    let conflict = try Conflict.keep(
                        db, kind: .sameSize, origin: checkpoint.origin, request: request, at: clock())
                    return (Self.sizeConflict(stored), conflict)
                }
                let consistent =
                    latest.map {
                        hasher.verifyConsistency(
                            oldSize: $0.size, newSize: checkpoint.size, oldRoot: $0.rootHash,
                            newRoot: checkpoint.rootHash, proof: request.consistencyProof)
                    } ?? request.consistencyProof.isEmpty
                guard consistent else {
                    let conflict = try Conflict.keep(
                        db, kind: .inconsistent, origin: checkpoint.origin, request: request, at: clock())
                    return (.text(422, "the consistency proof does not verify"), conflict)
                }
                let now = clock()
                let timestamp = UInt64(max(1, now.timeIntervalSince1970.rounded(.down)))
                let cosignature = signer.signature(of: request.checkpoint.text, timestamp: timestamp)
                var note = request.checkpoint
                note.add([cosignature])
                try WitnessStore.save(
                    db, origin: checkpoint.origin, size: checkpoint.size, rootHash: checkpoint.rootHash,
                    note: note.bytes, at: now)
                return (
                    Answer(status: 200, contentType: "text/plain; charset=utf-8", body: Array(cosignature.line.utf8)),
                    nil
                )
            }
            if let conflict { log(conflict) }
            return answer
        } catch {
            return .text(500, "the witness could not store the checkpoint")
        }
    }

    /// `409 Conflict` with the size the witness holds (`text/x.tlog.size`).
    private static func sizeConflict(_ size: Int) -> Answer {
        Answer(status: 409, contentType: "text/x.tlog.size", body: Array("\(size)\n".utf8))
    }

    /// Logs a kept conflict loudly, with both notes (they are public: signed checkpoints, no secret).
    private func log(_ conflict: Conflict) {
        guard conflict.isNew else { return }
        logger.critical(
            "LOG FORK: a checkpoint signed by the log key conflicts with the one this witness cosigned; kept as evidence",
            metadata: [
                "origin": "\(conflict.origin)", "kind": "\(conflict.kind.rawValue)",
                "held": "\(String(decoding: conflict.held, as: UTF8.self))",
                "offered": "\(String(decoding: conflict.offered, as: UTF8.self))",
            ])
    }

    /// The conflicts kept as evidence for the log `origin`, newest first (at most 1,000).
    package func conflicts(origin: String) throws -> [Conflict] {
        try store.conflicts(origin: origin)
    }

    /// `GET /<origin hash>/checkpoint` (the monitoring API): the newest cosigned checkpoint of the log whose
    /// origin's SHA-256 is `originHash` (lowercase hex), with the log's signatures and this witness's.
    package func checkpoint(originHash: String) -> Answer {
        let hex: (String) -> String = { origin in
            self.crypto.sha256(Array(origin.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        guard let note = try? store.note(originHash: originHash, crypto: hex) else {
            return .text(404, "this witness has cosigned no checkpoint of that log")
        }
        return Answer(status: 200, contentType: "text/plain; charset=utf-8", body: note)
    }

    /// `GET /<origin hash>/conflicts` (pinset's own read-only path, outside C2SP): the conflicts kept as evidence
    /// for the log whose origin's SHA-256 is `originHash`, newest first, as JSON (`[]` when there are none).
    package func conflicts(originHash: String) -> Answer {
        guard let origin = logs.keys.first(where: { hexHash($0) == originHash }) else {
            return .text(404, "this witness follows no log of that origin hash")
        }
        struct Item: Encodable {
            let kind: String
            let held: String
            let offered: String
            let proof: [String]
            let seenAt: String
        }
        do {
            let items = try store.conflicts(origin: origin).map {
                Item(
                    kind: $0.kind.rawValue, held: String(decoding: $0.held, as: UTF8.self),
                    offered: String(decoding: $0.offered, as: UTF8.self),
                    proof: $0.proof.split(separator: "\n").map(String.init), seenAt: RFC3339.format($0.seenAt))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Answer(status: 200, contentType: "application/json", body: Array(try encoder.encode(items)))
        } catch {
            return .text(500, "the witness could not read its evidence")
        }
    }

    private func hexHash(_ origin: String) -> String {
        crypto.sha256(Array(origin.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
