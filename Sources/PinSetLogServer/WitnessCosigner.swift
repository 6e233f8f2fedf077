import Dispatch
import Foundation
import Locking
import PinSetCore
import TransparencyLog

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One witness a log asks for cosignatures (C2SP tlog-witness): its submission prefix and its cosigning key.
package struct WitnessEndpoint: Sendable, Equatable {
    /// The submission prefix; requests go to `<url>/add-checkpoint`.
    package let url: URL
    /// The witness's vkey (type 0x04).
    package let key: VerifierKey

    /// Creates an endpoint.
    package init(url: URL, key: VerifierKey) {
        self.url = url
        self.key = key
    }

    /// The URL as logs and `GET /admin/log` show it: scheme, host and port only, since a witness's credentials
    /// may sit in its user part, path or query.
    package var displayURL: String {
        let port = url.port.map { ":\($0)" } ?? ""
        let rest = url.path.isEmpty || url.path == "/" ? "" : "/…"
        return "\(url.scheme ?? "http")://\(url.host ?? "?")\(port)\(rest)"
    }
}

/// Asks a log's witnesses to cosign its latest checkpoint, all at once and within a deadline (PROTOCOL §7.2).
///
/// It remembers the size each witness holds (0 at first) and learns it from a `409`, then asks again once. A
/// witness that does not answer in time, or refuses, is asked again in a later round: each round asks every
/// witness whose cosignature the latest checkpoint lacks. Storing what was gathered is the caller's
/// (``LogState/addCosignatures(_:to:size:in:at:)``), inside its own write.
package final class WitnessCosigner: Sendable {
    /// What one witness answered in a round.
    package enum Outcome: Sendable, Equatable {
        /// Cosigned: its verified signature lines.
        case cosigned([NoteSignature])
        /// Already cosigned this checkpoint: not asked.
        case alreadyCosigned
        /// Answered with another status (after a `409` was followed up once); the body's first line.
        case refused(status: Int, reason: String)
        /// Answered `200` with lines that do not verify under its key.
        case badAnswer(String)
        /// No answer before the deadline, or no connection.
        case unreachable
    }

    /// One round's result.
    package struct Round: Sendable {
        /// The checkpoint size the round was for (0 when the log has no checkpoint yet).
        package let size: Int
        /// The checkpoint the witnesses were sent (`nil` when the log has none yet).
        package let note: SignedNote?
        /// Each witness's outcome, in the order the witnesses were given.
        package let outcomes: [Outcome]

        /// Every verified cosignature line gathered.
        package var cosignatures: [NoteSignature] {
            outcomes.flatMap { outcome -> [NoteSignature] in
                if case .cosigned(let lines) = outcome { return lines }
                return []
            }
        }
    }

    private let log: LogState
    private let witnesses: [WitnessEndpoint]
    private let crypto: any TrustCrypto
    private let held: Locked<[Int]>

    /// Creates a cosigner for `log`'s checkpoints.
    package init(log: LogState, witnesses: [WitnessEndpoint], crypto: any TrustCrypto) {
        self.log = log
        self.witnesses = witnesses
        self.crypto = crypto
        self.held = Locked(witnesses.map { _ in 0 })
    }

    /// Asks every witness that has not cosigned the latest checkpoint yet, in parallel; returns when all have
    /// answered or `deadline` seconds have passed, whichever comes first.
    /// - Parameter checkpoint: the checkpoint to ask about instead of the latest (tests: a newer one signed
    ///   while the round runs).
    package func round(deadline: TimeInterval, checkpoint: SignedNote? = nil) -> Round {
        guard let note = checkpoint ?? log.checkpoint, let size = try? Checkpoint(text: note.text).size else {
            return Round(size: 0, note: nil, outcomes: witnesses.map { _ in .unreachable })
        }
        let outcomes = Locked([Outcome?](repeating: nil, count: witnesses.count))
        let group = DispatchGroup()
        let end = Date().addingTimeInterval(deadline)
        for (index, witness) in witnesses.enumerated() {
            if note.signatures.contains(where: { $0.name == witness.key.name && $0.keyID == witness.key.keyID }) {
                outcomes.withLock { $0[index] = .alreadyCosigned }
                continue
            }
            group.enter()
            DispatchQueue.global().async {
                let outcome = self.ask(index, witness, note: note, size: size, until: end)
                outcomes.withLock { $0[index] = outcome }
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + deadline + 0.5)
        return Round(size: size, note: note, outcomes: outcomes.withLock { $0.map { $0 ?? .unreachable } })
    }

    /// Asks one witness about `note` (of `size`): the checkpoint the round started with, even when a newer one
    /// was signed meanwhile, so the cosignatures gathered are for the round's `size`.
    private func ask(_ index: Int, _ witness: WitnessEndpoint, note: SignedNote, size: Int, until end: Date)
        -> Outcome
    {
        var oldSize = min(held.withLock { $0[index] }, size)
        for attempt in 0..<2 {
            guard let request = try? log.witnessRequest(oldSize: oldSize, for: (note, size)) else {
                return .refused(status: 0, reason: "no request")
            }
            let timeout = end.timeIntervalSinceNow
            guard timeout > 0, let (status, body) = Self.post(request.bytes, to: witness.url, timeout: timeout) else {
                return .unreachable
            }
            switch status {
            case 200:
                do {
                    let lines = try request.cosignatures(inResponse: body, witness: witness.key, crypto: crypto)
                    held.withLock { $0[index] = size }
                    return .cosigned(lines)
                } catch {
                    return .badAnswer(error.detail)
                }
            case 409 where attempt == 0:
                // The witness holds another size: its body says which (text/x.tlog.size); ask again from there.
                guard let text = String(bytes: body, encoding: .utf8), text.hasSuffix("\n"),
                    let holds = Int(text.dropLast()), holds >= 0, holds <= size
                else { return .refused(status: 409, reason: "a size the log never had") }
                held.withLock { $0[index] = holds }
                oldSize = holds
            default:
                let reason = String(decoding: body.prefix(200), as: UTF8.self).split(separator: "\n").first
                return .refused(status: status, reason: reason.map(String.init) ?? "")
            }
        }
        return .refused(status: 409, reason: "the witness's size changed twice")
    }

    /// One POST of `body` to `<url>/add-checkpoint`: its status and body, or `nil` without an answer in time.
    private static func post(_ body: [UInt8], to url: URL, timeout: TimeInterval) -> (Int, [UInt8])? {
        var request = URLRequest(url: url.appendingPathComponent("add-checkpoint"), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        let answer = Locked<(Int, [UInt8])?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, _ in
            if let http = response as? HTTPURLResponse {
                answer.withLock { $0 = (http.statusCode, [UInt8](data ?? Data())) }
            }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            task.cancel()
            return nil
        }
        return answer.withLock { $0 }
    }
}
