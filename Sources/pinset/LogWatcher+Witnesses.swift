import Foundation
import PinSetCore
import TransparencyLog

extension LogWatcher {
    /// What a witness holds for the log, compared with the checkpoint held (PROTOCOL §7.5).
    enum WitnessView {
        /// Nothing to report: a checkpoint of the held tree, or none.
        case agrees
        /// The witness's checkpoint is larger than the log served, since `since`.
        case ahead(since: Date)
        /// A checkpoint signed by the log key that is not one of the held tree: a fork.
        case fork(LogFork)
    }

    /// Reads `witness`'s newest cosigned checkpoint of the held log (`GET <witness>/<sha256(origin)>/checkpoint`,
    /// §7.2) and compares it with `held`. One larger than the held tree is a fork once it stayed ahead for `grace`
    /// seconds since `aheadSince` (a log serves its checkpoint before witnesses see it, a mirror may lag).
    /// - Throws: when the witness cannot be read or serves a checkpoint the log did not sign.
    func view(
        of witness: String, held: VerifiedCheckpoint, aheadSince: Date?, grace: TimeInterval, now: Date = Date()
    ) throws -> WitnessView {
        let origin = held.checkpoint.origin
        let hash = crypto.sha256(Array(origin.utf8)).map { String(format: "%02x", $0) }.joined()
        let bytes: [UInt8]
        do {
            bytes = try LogSource(witness).read("\(hash)/checkpoint")
        } catch is LogSource.NotFound {
            return .agrees
        }
        let theirs = try verifier.signedByLog(try SignedNote(parsing: bytes))
        guard theirs.checkpoint.origin == origin else {
            throw CLIError("\(witness) served a checkpoint of \(theirs.checkpoint.origin), not \(origin)")
        }
        if theirs.checkpoint.size > held.checkpoint.size {
            let since = aheadSince ?? now
            guard now.timeIntervalSince(since) >= grace else { return .ahead(since: since) }
            return .fork(LogFork(kept: held.note, refused: theirs.note))
        }
        switch judge(theirs, held: held) {
        case .prefix: return .agrees
        case .fork: return .fork(LogFork(kept: held.note, refused: theirs.note))
        case .unknown:
            tiles.removeAll()
            throw CLIError(
                "cannot compare \(witness)'s checkpoint of size \(theirs.checkpoint.size) with the log: its tiles do "
                    + "not lead to the checkpoint held")
        }
    }
}
