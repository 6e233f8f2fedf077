import Foundation
internal import GRDB
import PinSetCore
import TransparencyLog

extension Witness {
    /// A checkpoint, signed by a followed log's key, that conflicts with the one the witness holds: evidence that
    /// the log key signed two histories (PROTOCOL §7.2). Kept in the witness's database with both notes.
    package struct Conflict: Sendable, Equatable {
        /// How the offered checkpoint conflicts with the held one.
        package enum Kind: String, Sendable {
            /// The same size, another root hash: self-contained proof of a fork.
            case sameSize = "same-size"
            /// A larger checkpoint whose consistency proof from the held one does not verify.
            case inconsistent
        }

        /// The log's origin.
        package let origin: String
        /// How it conflicts.
        package let kind: Kind
        /// The checkpoint the witness holds (cosigned), as stored.
        package let held: [UInt8]
        /// The conflicting checkpoint, as offered (with its log signature).
        package let offered: [UInt8]
        /// The consistency proof offered with it, one base64 hash a line.
        package let proof: String
        /// When it was first offered.
        package let seenAt: Date
        /// Whether it was kept just now (`false`: the same checkpoint was offered before).
        package let isNew: Bool

        /// Stores the conflict of `request` with the checkpoint held for `origin`, in the caller's write.
        static func keep(
            _ db: Database, kind: Kind, origin: String, request: AddCheckpointRequest, at now: Date
        ) throws -> Conflict {
            let held = try WitnessStore.note(db, origin: origin) ?? []
            let proof = request.consistencyProof.map { Base64.encode($0) }.joined(separator: "\n")
            let isNew = try WitnessStore.keepConflict(
                db, origin: origin, kind: kind.rawValue, held: held, offeredText: request.checkpoint.text,
                offered: request.checkpoint.bytes, proof: proof, at: now)
            return Conflict(
                origin: origin, kind: kind, held: held, offered: request.checkpoint.bytes, proof: proof, seenAt: now,
                isNew: isNew)
        }
    }
}
