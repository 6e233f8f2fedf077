import Foundation
import PinSetCore
import TransparencyLog

/// The network half of PROTOCOL §7.4 for a ``PinSetUpdater`` whose manager has a tlog-policy: fetches a
/// document's proof, reads the log's tiles for a consistency proof, runs ``LogProofVerifier``, and accepts the
/// document together with the larger checkpoint (``LogCheckpoints/commit(_:basis:accept:)``). A fork is told to
/// the application, kept in storage and reported.
final class LogAuditor: Sendable {
    /// What became of a document checked against the log.
    enum Outcome {
        /// Steps 1–3 held and `accept` took the document.
        case accepted
        /// `accept` refused the document (its own rules, §5 or §6.2); nothing changed.
        case documentRefused
        /// Steps 1–2 failed, or the consistency proof could not be read; nothing changed.
        case notLogged(String)
        /// Step 3: the log forked; nothing changed, the fork is reported.
        case fork(LogFork)
        /// The proof could not be fetched; retried at the next refresh.
        case fetchFailed(UpdateError)
    }

    let checkpoints: LogCheckpoints
    private let trustStore: TrustStore?
    private let server: URL
    private let transport: any PinSetTransport
    private let storage: PinStorage?
    private let reporter: PinFailureReporter?
    private let clock: @Sendable () -> Date
    private let events: UpdateEventSink
    private let hasher = MerkleHasher(crypto: SwiftCryptoTrust())

    /// The auditor of an updater whose manager has a policy; `nil` for one without.
    static func make(
        _ manager: PinTrustManager, server: URL, transport: any PinSetTransport, storage: PinStorage?,
        reporter: PinFailureReporter?, clock: @escaping @Sendable () -> Date,
        events: UpdateEventSink
    ) -> LogAuditor? {
        guard let checkpoints = manager.log else { return nil }
        return LogAuditor(
            checkpoints: checkpoints, trustStore: manager.trustStore, server: server, transport: transport,
            storage: storage, reporter: reporter, clock: clock, events: events)
    }

    private init(
        checkpoints: LogCheckpoints, trustStore: TrustStore?, server: URL, transport: any PinSetTransport,
        storage: PinStorage?, reporter: PinFailureReporter?, clock: @escaping @Sendable () -> Date,
        events: UpdateEventSink
    ) {
        self.checkpoints = checkpoints
        self.trustStore = trustStore
        self.server = server
        self.transport = transport
        self.storage = storage
        self.reporter = reporter
        self.clock = clock
        self.events = events
        // A fork a bundled document shows is reported and kept as a fetched one's (PROTOCOL §7.4).
        checkpoints.onBundledFork { [weak self] fork, document in
            self?.reportFork(fork, proof: [], document: document)
        }
    }

    /// Installs the persisted largest checkpoint of every policy log that still verifies, and leaves out again the
    /// log keys that signed a persisted fork (PROTOCOL §7.4: a restart does not forgive a fork).
    func loadPersisted() {
        guard let storage else { return }
        for origin in Set(checkpoints.policy.logs.map(\.key.name)) {
            for report in storage.loadForks(origin: origin) {
                guard let kept = try? SignedNote(parsing: Array((report.held ?? report.keptCheckpoint).utf8)),
                    let refused = try? SignedNote(parsing: Array((report.new ?? report.refusedCheckpoint).utf8))
                else { continue }
                checkpoints.recordFork(
                    LogFork(kept: kept, refused: refused), verifier: checkpoints.verifier(trust: trustStore?.current))
            }
            if let note = storage.loadCheckpoint(origin: origin) {
                checkpoints.restore(note, trust: trustStore?.current)
            }
        }
    }

    /// Fetches `<document>/proof` and checks the document's bytes against it (§7.4 steps 1–3), then calls
    /// `accept` and keeps the larger checkpoint only if it returns `true`.
    /// - Parameters:
    ///   - entry: the document's bytes as received.
    ///   - document: its path (`/pins/<host>`, `/trust/<version>`), for the proof URL and a fork report.
    ///   - trust: whose `logKeys` the checkpoint may be signed with; default the trust state in force. A trust
    ///     document's own proof is checked under the state it makes (its root keys vouch for its `logKeys`).
    ///   - accept: installs the document; called at most once, under the checkpoints' lock.
    func check(
        _ entry: [UInt8], document: String, trust: TrustState? = nil,
        accept: @Sendable () -> Bool
    ) async -> Outcome {
        let url = server.appendingPathComponent(String(document.dropFirst()))
            .appendingPathComponent("proof")
        let response: TransportResponse
        do {
            response = try await transport.get(url, headers: ["Accept": "text/plain"])
        } catch {
            return .fetchFailed(UpdateError(.transport, "GET \(url.absoluteString) failed: \(error)"))
        }
        switch response.status {
        case 200: break
        case 404: return .notLogged("the server has no proof for \(document) (404)")
        default:
            return .fetchFailed(
                UpdateError(
                    .httpStatus, status: response.status,
                    "the server answered \(response.status) for \(document)/proof"))
        }
        let proof: LogProof
        do { proof = try LogProof(parsing: response.body) } catch { return .notLogged("\(document)/proof: \(error)") }
        return await check(
            entry, proof: proof, document: document, trust: trust ?? trustStore?.current,
            accept: accept)
    }

    /// Checks `entry` against `proof` (§7.4 steps 1–3) and commits it with `accept`. Retries when another document
    /// moved the largest checkpoint meanwhile (at most 4 times).
    func check(
        _ entry: [UInt8], proof: LogProof, document: String, trust: TrustState?,
        accept: @Sendable () -> Bool
    ) async -> Outcome {
        let checkpoint: Checkpoint
        do { checkpoint = try Checkpoint(text: proof.checkpoint.text) } catch {
            return .notLogged("the proof's checkpoint: \(error)")
        }
        let verifier = checkpoints.verifier(trust: trust)
        // Inclusion and the log's signature first, with no request: tiles are fetched only for a checkpoint the log
        // signed. A fork needs no quorum; the quorum is checked after the consistency.
        let verified: VerifiedCheckpoint
        do { verified = try verifier.verifyInclusion(entry: entry, proof: proof) } catch {
            return .notLogged(error.description)
        }
        for _ in 0..<4 {
            let basis = checkpoints.largest(origin: checkpoint.origin)
            // Step 3 from the larger tree's tiles, whichever checkpoint is larger (a smaller one must be consistent
            // with the one held too); tiles that do not lead to the larger root are no fork, only no proof.
            let kept: VerifiedCheckpoint
            let (consistency, forkProof) = await consistent(verified, with: basis, verifier: verifier)
            switch consistency {
            case .success(let larger): kept = larger
            case .failure(.fork(let fork)):
                // §7.4: after a fork, no document under that log key until a trust document names another one.
                checkpoints.recordFork(fork, verifier: verifier)
                reportFork(fork, proof: forkProof, document: document)
                return .fork(fork)
            case .failure(.refused(let error)): return .notLogged(error.description)
            }
            do { try verifier.requireQuorum(verified) } catch { return .notLogged(error.description) }
            switch checkpoints.commit(kept, basis: basis, accept: accept) {
            case .stale: continue
            case .refused: return .documentRefused
            case .accepted(let advanced):
                if advanced, let storage {
                    do { try storage.saveCheckpoint(kept.note, origin: kept.checkpoint.origin) } catch {
                        events.yield(.logPersistenceFailed(error))
                    }
                }
                return .accepted
            }
        }
        return .notLogged("the log's largest checkpoint kept moving while this document was checked; try again")
    }

    private func reportFork(_ fork: LogFork, proof: [TreeHash], document: String) {
        events.yield(.logFork(document: document, fork))
        let report = LogForkReport(fork, document: document, at: clock(), proof: proof)
        if let storage {
            do { try storage.saveFork(report) } catch { events.yield(.logPersistenceFailed(error)) }
        }
        // PROTOCOL §7.4: to the application's report address and the configured pin server, never to a reportUri
        // from a document (the forking party may have written it).
        reporter?.submit(report, pinServerReports: server.appendingPathComponent("reports"))
    }

    /// PROTOCOL §7.4 step 3 for `verified` against `basis`, from the log's tiles (C2SP tlog-tiles) of the larger of
    /// the two trees, each fetched once (``LogProofVerifier/checkConsistency(_:with:tiles:)``). The tiles are not
    /// trusted: one that does not lead to the larger root refuses the document, it proves no fork.
    ///
    /// With a fork across two sizes it also returns the consistency proof that failed (PROTOCOL §3's `proof`): the
    /// one the tiles give from the smaller size to the larger, which leads to the larger root and not from the
    /// smaller checkpoint's root. Empty otherwise (one size: the two notes are the evidence).
    func consistent(_ verified: VerifiedCheckpoint, with basis: VerifiedCheckpoint?, verifier: LogProofVerifier) async
        -> (Result<VerifiedCheckpoint, LogRejection>, forkProof: [TreeHash])
    {
        guard let basis, basis.checkpoint.size != verified.checkpoint.size else {
            let result = Result { () throws(LogRejection) in
                try verifier.checkConsistency(
                    verified, with: basis, tiles: MerkleTree(hasher: hasher, reader: NoTiles()))
            }
            return (result, [])
        }
        let size = max(basis.checkpoint.size, verified.checkpoint.size)
        let base = logURL(origin: verified.checkpoint.origin)
        let tiles = TileCache()
        // A proof and a root touch a few tiles per level; each round fetches the one tile found missing.
        for _ in 0..<128 {
            let reader = TileReader(treeSize: size, hasher: hasher) { tile in
                guard let bytes = tiles.bytes[tile] else {
                    tiles.missing = tile
                    throw LogError(.missingHash, "\(tile.path) not fetched yet")
                }
                return bytes
            }
            tiles.missing = nil
            let tree = MerkleTree(hasher: hasher, reader: reader)
            let result = Result { () throws(LogRejection) in
                try verifier.checkConsistency(verified, with: basis, tiles: tree)
            }
            guard let tile = tiles.missing else {
                // The fork was judged from this very proof (MerkleTree.judgePrefix reads it first), so its tiles
                // are all held and nothing more is fetched; the origins differ when it came from no proof at all.
                guard case .failure(.fork) = result, basis.checkpoint.origin == verified.checkpoint.origin else {
                    return (result, [])
                }
                let small = min(basis.checkpoint.size, verified.checkpoint.size)
                return (result, (try? tree.consistencyProof(from: small, to: size)) ?? [])
            }
            do {
                tiles.bytes[tile] = try await fetch(tile, base: base)
            } catch {
                let error = LogError(.missingHash, "no consistency proof can be had: \(error.detail)")
                return (.failure(.refused(error)), [])
            }
        }
        return (.failure(.refused(LogError(.missingHash, "a consistency proof needed more than 128 tiles"))), [])
    }

    /// A tile's bytes: the partial tile, or (once the log has grown past it) the first hashes of the full one.
    private func fetch(_ tile: Tile, base: URL) async throws(LogError) -> [UInt8] {
        let wanted = tile.width * 32
        var candidates = [tile]
        if tile.isPartial { candidates.append(Tile(level: tile.level, index: tile.index)) }
        var last = "no answer"
        for candidate in candidates {
            let url = base.appendingPathComponent(candidate.path)
            do {
                let response = try await transport.get(url, headers: [:])
                if response.status == 200, response.body.count >= wanted { return Array(response.body.prefix(wanted)) }
                last = "GET \(url.absoluteString) answered \(response.status) with \(response.body.count) bytes"
            } catch {
                last = "GET \(url.absoluteString) failed: \(error)"
            }
        }
        throw LogError(.missingHash, last)
    }

    /// The log's tile prefix: the policy's URL for the log, else `<server>/log`.
    private func logURL(origin: String) -> URL {
        if let text = checkpoints.policy.logs.first(where: { $0.key.name == origin })?.url, let url = URL(string: text)
        {
            return url
        }
        return server.appendingPathComponent("log")
    }
}

/// No hashes at all: equal sizes need none.
private struct NoTiles: SubtreeHashReader {
    func subtreeHash(level: Int, index: Int) throws(LogError) -> TreeHash {
        throw LogError(.missingHash, "no tiles are read for checkpoints of one size")
    }
}

/// The tiles one consistency proof has fetched, read by ``TileReader``'s synchronous callback.
private final class TileCache {
    var bytes: [Tile: [UInt8]] = [:]
    var missing: Tile?
}
