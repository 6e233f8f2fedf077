import Foundation
import Locking
import PinSetCore
import TransparencyLog

/// The client's knowledge of its transparency logs (PROTOCOL §7.4): the policy, and the largest checkpoint of
/// each log accepted so far. Shared by everything that accepts documents for one ``PinTrustManager`` (pin
/// documents, trust documents, bundled documents), so that a fork is seen whichever path brought the checkpoint.
final class LogCheckpoints: Sendable {
    /// The policy the app configured (``PinningOptions/logPolicy``).
    let policy: LogPolicy
    private let largest = Locked<[String: VerifiedCheckpoint]>([:])
    /// Log keys that signed both notes of a fork: no document under them is accepted any more (PROTOCOL §7.4),
    /// until a trust document names another key in `logKeys`.
    private let forked = Locked<Set<VerifierKey>>([])
    /// Told of each fork a bundled document's proof shows (``onBundledFork(_:)``).
    private let forkHandler = Locked<(@Sendable (LogFork, String) -> Void)?>(nil)

    init(policy: LogPolicy) {
        self.policy = policy
    }

    /// A verifier for `policy`, with the trust state's `logKeys` accepted as further keys of the policy's logs
    /// (PROTOCOL §7.1: the log key rotates like a signing key).
    /// A log key that signed a fork is left out (PROTOCOL §7.4): its log's documents are then refused (an unknown
    /// origin) until the trust state names another key of it in `logKeys`.
    func verifier(trust: TrustState?) -> LogProofVerifier {
        let forked = forked.withLock { $0 }
        guard let trust, !trust.logKeys.isEmpty else {
            return LogProofVerifier(policy: policy.removingLogKeys(forked))
        }
        let extended = policy.addingLogKeys(trust.logKeys.values.map(\.rawRepresentation), crypto: SwiftCryptoTrust())
        return LogProofVerifier(policy: extended.removingLogKeys(forked))
    }

    /// Records `fork`: every key of `verifier`'s policy that signed both notes is trusted no more.
    /// - Returns: the keys newly left out.
    @discardableResult
    func recordFork(_ fork: LogFork, verifier: LogProofVerifier) -> Set<VerifierKey> {
        let crypto = SwiftCryptoTrust()
        let keys = Set(verifier.policy.logs.map(\.key)).filter { key in
            (try? fork.kept.verify([key], crypto: crypto))?.isEmpty == false
                && (try? fork.refused.verify([key], crypto: crypto))?.isEmpty == false
        }
        return forked.withLock { forked in keys.filter { forked.insert($0).inserted } }
    }

    /// The log keys left out after a fork.
    var forkedKeys: Set<VerifierKey> { forked.withLock { $0 } }

    /// The largest checkpoint accepted of the log named `origin`.
    func largest(origin: String) -> VerifiedCheckpoint? {
        largest.withLock { $0[origin] }
    }

    /// Installs a persisted checkpoint at start, if it verifies under the policy now (a policy that changed may
    /// refuse it; the client then starts from none) and is larger than the one held.
    /// - Returns: whether it was installed.
    @discardableResult
    func restore(_ note: SignedNote, trust: TrustState?) -> Bool {
        guard let verified = try? verifier(trust: trust).verifyCheckpoint(note) else { return false }
        return largest.withLock { largest in
            if let held = largest[verified.checkpoint.origin], held.checkpoint.size >= verified.checkpoint.size {
                return false
            }
            largest[verified.checkpoint.origin] = verified
            return true
        }
    }

    /// What ``commit(_:basis:accept:)`` did.
    enum Commit {
        /// Another document moved the largest checkpoint since `basis` was read: check again against it.
        case stale
        /// `accept` refused the document; nothing changed.
        case refused
        /// The document was accepted; `advanced` when `kept` became the largest checkpoint of its log.
        case accepted(advanced: Bool)
    }

    /// Accepts a document whose proof passed §7.4 steps 1–3 against `basis`, and keeps `kept` as its log's
    /// largest checkpoint, atomically: if the largest moved since `basis` was read, nothing happens (`.stale`);
    /// if `accept` refuses the document, the largest stays.
    func commit(_ kept: VerifiedCheckpoint, basis: VerifiedCheckpoint?, accept: () -> Bool) -> Commit {
        largest.withLock { largest in
            let origin = kept.checkpoint.origin
            guard largest[origin] == basis else { return .stale }
            guard accept() else { return .refused }
            guard largest[origin] != kept else { return .accepted(advanced: false) }
            largest[origin] = kept
            return .accepted(advanced: true)
        }
    }
}

extension LogCheckpoints {
    /// A bundled document's proof read from the first of `files` that exists: PROTOCOL §7.4 steps 1–2, and step 3
    /// against a largest checkpoint of the same size only (equal sizes need no tiles). `nil` when it holds.
    ///
    /// As for a fetched document, a fork needs no quorum: a checkpoint of the held size with another root, signed
    /// by the log key, is a fork whether witnesses cosigned it or not. It is recorded (its log key is trusted no
    /// more), told to the fork handler (``onBundledFork(_:)``: the updater reports and keeps it), and refused.
    func checkBundled(_ entry: [UInt8], proof files: [URL], document: String, trust: TrustState?)
        -> DocumentRejection?
    {
        guard let data = files.lazy.compactMap({ FileManager.default.contents(atPath: $0.path) }).first else {
            let names = files.map { $0.deletingLastPathComponent().lastPathComponent + "/" + $0.lastPathComponent }
            return DocumentRejection(
                .notLogged, "no proof beside the bundled document (\(names.joined(separator: " or ")))")
        }
        let verifier = verifier(trust: trust)
        let verified: VerifiedCheckpoint
        do {
            verified = try verifier.verifyInclusion(entry: entry, proof: try LogProof(parsing: data))
        } catch {
            return DocumentRejection(.notLogged, "the bundled proof: \(error)")
        }
        if let held = largest(origin: verified.checkpoint.origin), held.checkpoint.size == verified.checkpoint.size,
            held.checkpoint.rootHash != verified.checkpoint.rootHash
        {
            let fork = LogFork(kept: held.note, refused: verified.note)
            recordFork(fork, verifier: verifier)
            forkHandler.withLock { $0 }?(fork, document)
            return DocumentRejection(
                .logFork,
                "the bundled proof's checkpoint has the size of the largest accepted but another root: the log forked")
        }
        do { try verifier.requireQuorum(verified) } catch {
            return DocumentRejection(.notLogged, "the bundled proof: \(error)")
        }
        return nil
    }

    /// Sets what is done with a fork a bundled document showed (``checkBundled(_:proof:document:trust:)``): the
    /// updater of this manager reports it and keeps it in storage, as it does a fork a fetched proof showed.
    func onBundledFork(_ handler: @escaping @Sendable (LogFork, _ document: String) -> Void) {
        forkHandler.withLock { $0 = handler }
    }
}
