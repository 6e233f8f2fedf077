import Foundation
internal import GRDB
import Locking
import Logging
import PinSetCore
import PinSetStorage
import TransparencyLog

/// Gathers witnesses' cosignatures for the log's checkpoints (PROTOCOL §7.2) on a thread of its own: a
/// ``WitnessCosigner`` round after each new checkpoint (at most one round per ``minimumInterval``: a burst of
/// checkpoints costs one round, for the latest), and again every ``LogConfiguration/witnessRetryInterval``
/// while some witness has not cosigned the latest one (a witness that was down is caught up with the latest
/// checkpoint). What a round gathers is stored with the checkpoint, then the publisher serves it and rebuilds the
/// proofs that lacked it.
package final class WitnessWorker: Sendable {
    /// A witness's last answer, for `GET /admin/log`.
    package struct Status: Sendable, Encodable {
        package let url: String
        package let keyName: String
        package var lastAnswer: String?
        package var lastAt: Date?
        package var lastError: String?
        /// The checkpoint size it last cosigned.
        package var cosignedSize: Int?
    }

    private let cosigner: WitnessCosigner
    private let witnesses: [WitnessEndpoint]
    private let publisher: LogPublisher
    private let statuses: Locked<[Status]>
    private let lastStart = Locked(Date.distantPast)
    /// The least time between the starts of two rounds: 1 second (the issue's "at most one a second"). A round
    /// costs a POST per witness, a stored cosignature and the proofs rebuilt; writes never wait for it.
    package static let minimumInterval: TimeInterval = 1
    private let worker: Locked<PeriodicWorker?> = Locked(nil)

    package init(
        publisher: LogPublisher, witnesses: [WitnessEndpoint], deadline: TimeInterval, retryInterval: TimeInterval,
        crypto: any TrustCrypto, logger: Logger
    ) {
        self.publisher = publisher
        self.witnesses = witnesses
        cosigner = WitnessCosigner(log: publisher.log, witnesses: witnesses, crypto: crypto)
        statuses = Locked(
            witnesses.map { Status(url: $0.displayURL, keyName: $0.key.name) })
        let worker = PeriodicWorker(name: "pinset.witnesses") { [self] _ in
            let since = Date().timeIntervalSince(lastStart.withLock { $0 })
            guard since >= Self.minimumInterval else { return Self.minimumInterval - since }
            lastStart.withLock { $0 = Date() }
            return runRound(deadline: deadline, logger: logger) ? 3600 : retryInterval
        }
        self.worker.withLock { $0 = worker }
        publisher.onCheckpoint { worker.wakeUp() }
    }

    /// Every witness's last answer.
    package var status: [Status] { statuses.withLock { $0 } }

    /// Stops the thread (waits for a round in progress, at most its deadline).
    package func stop() { worker.withLock { $0 }?.stop() }

    /// One round; `true` when every witness has cosigned the latest checkpoint.
    private func runRound(deadline: TimeInterval, logger: Logger) -> Bool {
        guard publisher.log.checkpoint != nil else { return true }
        let started = Date()
        let round = cosigner.round(deadline: deadline)
        let now = Date()
        logger.debug(
            "witness round",
            metadata: [
                "size": "\(round.size)", "ms": "\(Int(now.timeIntervalSince(started) * 1000))",
                "cosigned": "\(round.cosignatures.count)",
            ])
        statuses.withLock { statuses in
            for (index, outcome) in round.outcomes.enumerated() {
                switch outcome {
                case .cosigned:
                    statuses[index].lastAnswer = "cosigned"
                    statuses[index].lastError = nil
                    statuses[index].cosignedSize = round.size
                case .alreadyCosigned:
                    continue
                case .refused(let status, let reason):
                    statuses[index].lastAnswer = "refused"
                    statuses[index].lastError = "HTTP \(status): \(reason)"
                case .badAnswer(let reason):
                    statuses[index].lastAnswer = "bad answer"
                    statuses[index].lastError = reason
                case .unreachable:
                    statuses[index].lastAnswer = "unreachable"
                    statuses[index].lastError = "no connection, or no answer within \(deadline) s"
                }
                statuses[index].lastAt = now
            }
        }
        let gathered = round.cosignatures
        if !gathered.isEmpty {
            do {
                try publisher.store.serializedWrite { db in
                    try PinDatabase.withoutSync(db) { db in
                        try publisher.log.addCosignatures(
                            gathered, to: round.note, size: round.size, in: db, at: now)
                    }
                }
                publisher.cosigned()
            } catch {
                logger.error("cannot store cosignatures", metadata: ["error": "\(error)"])
                return false
            }
        }
        // A conflict, an unverifiable proof or a size the log never had: is the witness holding a checkpoint our
        // key signed that is not ours? (PROTOCOL §7.2: the log's key is used elsewhere.)
        for (index, outcome) in round.outcomes.enumerated() {
            guard case .refused(let status, _) = outcome, status == 409 || status == 422 else { continue }
            if publisher.forks.check(witnesses[index], timeout: deadline) {
                statuses.withLock { $0[index].lastAnswer = "fork" }
            }
        }
        for (index, outcome) in round.outcomes.enumerated() {
            switch outcome {
            case .cosigned, .alreadyCosigned: continue
            default:
                logger.warning(
                    "a witness did not cosign the checkpoint",
                    metadata: [
                        "witness": "\(witnesses[index].displayURL)", "size": "\(round.size)",
                        "error": "\(statuses.withLock { $0[index].lastError ?? "" })",
                    ])
                return false
            }
        }
        return publisher.log.checkpointSize == round.size
    }
}
