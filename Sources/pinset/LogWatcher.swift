import Foundation
import PinSetCore
import TransparencyLog

/// One monitor of a transparency log (PROTOCOL §7.5): follows it from its tiles and reports every new entry whose
/// host matches.
///
/// Each ``pass(from:)`` reads the checkpoint, checks the log's signature, checks that it is consistent with the
/// checkpoint held (a consistency proof computed from the tiles, or the same root for the same size), reads the
/// entry bundles of every new entry, checks each entry's inclusion in the new checkpoint (so a mirror cannot slip
/// in or hide an entry), and reports the matching ones. Two inconsistent checkpoints are a ``LogFork``.
struct LogWatcher {
    let source: LogSource
    /// Checks the log's signature and the consistency; its policy's quorum is only warned about.
    let verifier: LogProofVerifier
    let patterns: HostPatterns
    let hooks: (String) -> LogWatchHooks
    let crypto: any TrustCrypto
    /// Tiles of the held tree, kept across passes (a smaller checkpoint, or a witness's, is judged against them);
    /// emptied when a pass fails.
    let tiles = FetchedTiles()

    /// What one pass found.
    enum Outcome {
        /// The checkpoint to hold from now on (the same one when nothing changed).
        case advanced(VerifiedCheckpoint)
        /// The source serves an older checkpoint than the one held, whose root is the held tree's at its size:
        /// a stale cache. `proven` is `false` when the tiles to tell could not be had (a fork is not excluded).
        case older(Int, proven: Bool)
        /// The log forked: both notes.
        case fork(LogFork)
    }

    /// Reads the log once from `held` (nil: from its first entry).
    /// - Throws: a ``CLIError`` or ``LogError`` when the files cannot be read or do not verify.
    func pass(from held: VerifiedCheckpoint?) throws -> Outcome {
        var passed = false
        defer { if !passed { tiles.removeAll() } }
        let outcome = try unguardedPass(from: held)
        passed = true
        if case .advanced(let checkpoint) = outcome { tiles.keep(treeSize: checkpoint.checkpoint.size) }
        return outcome
    }

    /// Whether `other` (signed by the log) is a checkpoint of the held tree: a smaller or equal one is judged
    /// from the held tree's tiles (kept, else read from the source; PROTOCOL §7.5).
    func judge(_ other: VerifiedCheckpoint, held: VerifiedCheckpoint) -> PrefixJudgement {
        let hasher = MerkleHasher(crypto: crypto)
        let reader = TileReader(treeSize: held.checkpoint.size, hasher: hasher) { tile in
            try tiles.bytes(of: tile) { try self.read(tile) }
        }
        do {
            return try MerkleTree(hasher: hasher, reader: reader).judgePrefix(
                size: other.checkpoint.size, root: other.checkpoint.rootHash, heldSize: held.checkpoint.size,
                heldRoot: held.checkpoint.rootHash)
        } catch {
            return .unknown
        }
    }

    private func unguardedPass(from held: VerifiedCheckpoint?) throws -> Outcome {
        let note = try SignedNote(parsing: try source.read("log/checkpoint"))
        let new = try checkSignature(note)
        let oldSize = held?.checkpoint.size ?? 0
        if let held, new.checkpoint.size < oldSize {
            switch judge(new, held: held) {
            case .prefix: return .older(new.checkpoint.size, proven: true)
            case .fork: return .fork(LogFork(kept: held.note, refused: new.note))
            case .unknown:
                tiles.removeAll()
                return .older(new.checkpoint.size, proven: false)
            }
        }
        let hasher = MerkleHasher(crypto: crypto)
        // Every tile is read once, and the bytes a proof was computed from are the bytes checked below.
        let reader = TileReader(treeSize: new.checkpoint.size, hasher: hasher) { tile in
            try tiles.bytes(of: tile) { try self.read(tile) }
        }
        let tree = MerkleTree(hasher: hasher, reader: reader)
        if let held {
            let proof = oldSize == 0 ? [] : try tree.consistencyProof(from: oldSize, to: new.checkpoint.size)
            do {
                _ = try verifier.checkConsistency(new, with: held, proof: proof)
            } catch {
                return .fork(error)
            }
        }
        guard new.checkpoint.size > oldSize else { return .advanced(held ?? new) }
        let report = hooks(new.checkpoint.origin)
        var tileIndex = oldSize / Tile.fullWidth
        while tileIndex * Tile.fullWidth < new.checkpoint.size {
            let start = tileIndex * Tile.fullWidth
            let width = min(Tile.fullWidth, new.checkpoint.size - start)
            let tile = Tile(level: 0, index: tileIndex, width: width)
            let entries = try bundle(tile)
            // The tile's last entry is in the checkpoint, by its inclusion proof. That proof's siblings inside the
            // tile are hashed from the tile's other leaf hashes, so they are the checkpoint's too; each entry is
            // then checked against its leaf hash. One proof per 256 entries, not one per entry.
            let last = start + width - 1
            let proof = try tree.inclusionProof(index: last, size: new.checkpoint.size)
            guard
                hasher.verifyInclusion(
                    leaf: hasher.leafHash(entries[width - 1]), index: last, size: new.checkpoint.size, proof: proof,
                    root: new.checkpoint.rootHash)
            else {
                throw LogError(.notIncluded, "entry \(last) served is not the one the checkpoint includes")
            }
            let leafHashes = try tiles.bytes(of: tile) { try self.read(tile) }
            for index in max(start, oldSize)..<(start + width) {
                let entry = entries[index - start]
                let offset = (index - start) * 32
                guard leafHashes.count == width * 32, hasher.leafHash(entry)[...] == leafHashes[offset..<(offset + 32)]
                else {
                    throw LogError(.notIncluded, "entry \(index) served is not the one the checkpoint includes")
                }
                let summary = LogEntrySummary(index: index, entry: entry)
                if summary.kind != .pins || patterns.matches(summary.host) {
                    report.document(summary, entry: entry)
                }
            }
            tileIndex += 1
        }
        return .advanced(new)
    }

    /// The log's signature, under the policy; a checkpoint short of the witness quorum is still followed (a
    /// monitor wants to see everything the log signed), with a warning.
    private func checkSignature(_ note: SignedNote) throws -> VerifiedCheckpoint {
        do {
            return try verifier.verifyCheckpoint(note)
        } catch {
            guard error.code == .quorumNotMet else { throw error }
            let verified = try verifier.signedByLog(note)
            warn("checkpoint of size \(verified.checkpoint.size): \(error.detail)")
            return verified
        }
    }

    /// A tile at the width the checkpoint needs: its partial file, or the full tile's first hashes once the
    /// partial one is gone.
    private func read(_ tile: Tile) throws -> [UInt8] {
        do {
            return try source.read("log/" + tile.path)
        } catch is LogSource.NotFound where tile.isPartial {
            let full = try source.read("log/" + Tile(level: tile.level, index: tile.index).path)
            return Array(full.prefix(tile.width * 32))
        }
    }

    /// The entries of a level-0 tile's bundle, exactly `tile.width` of them.
    private func bundle(_ tile: Tile) throws -> [[UInt8]] {
        var entries: [[UInt8]]
        do {
            entries = try EntryBundle.decode(try source.read("log/" + tile.entriesPath))
        } catch is LogSource.NotFound where tile.isPartial {
            entries = try EntryBundle.decode(try source.read("log/" + Tile(level: 0, index: tile.index).entriesPath))
        }
        guard entries.count >= tile.width else {
            throw LogError(.malformed, "\(tile.entriesPath) holds \(entries.count) entries, not \(tile.width)")
        }
        return Array(entries.prefix(tile.width))
    }
}

/// The tiles read, by path: each is fetched once, and every check sees the same bytes. Kept across passes while
/// they pass (full tiles never change; partial ones are dropped once the tree outgrows them).
final class FetchedTiles {
    private var tiles: [String: [UInt8]] = [:]

    func bytes(of tile: Tile, fetch: () throws -> [UInt8]) throws -> [UInt8] {
        if let known = tiles[tile.path] { return known }
        let fetched = try fetch()
        tiles[tile.path] = fetched
        return fetched
    }

    /// Forgets every tile (a pass failed: one of them may be wrong).
    func removeAll() { tiles.removeAll() }

    /// Keeps the full tiles and the partial tiles of a tree of `treeSize` only.
    func keep(treeSize: Int) {
        let partial = Set(Tile.all(treeSize: treeSize).filter(\.isPartial).map(\.path))
        tiles = tiles.filter { !$0.key.contains(".p/") || partial.contains($0.key) }
    }
}
