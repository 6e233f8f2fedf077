import Locking
import PinSetCore
import ReadCache
import TransparencyLog

/// The log's C2SP tlog-tiles files served under `/log/`: the checkpoint, tiles and entry bundles.
///
/// The checkpoint and the partial hash tiles are made when a checkpoint is published
/// (``LogState/files(changedSince:full:bundlesFrom:)``). Full tiles and bundles never change, so each is made when
/// it is first asked for (a hash tile from the log's memory, a bundle from SQLite) and kept in a cache bounded to
/// ``fullTileBudget`` bytes, least recently used out first: a log of a million entries does not keep its 270 MB of
/// bundles in memory. A partial entry bundle is made when first asked for too, and kept until its full bundle
/// exists or ``partialGenerations`` checkpoints later; a partial hash tile is kept until its full tile exists.
package final class LogFileIndex: Sendable {
    /// A partial tile or bundle served, with the generation (checkpoint count) that published it.
    private struct Partial {
        let tile: Tile
        let isEntries: Bool
        let generation: Int
    }

    private struct State {
        /// The checkpoint, partial hash tiles, and partial bundles once made.
        var files: [String: CachedResource] = [:]
        var partials: [String: Partial] = [:]
        var full = LogTileCache(budget: LogFileIndex.fullTileBudget)
        var generation = 0
        /// The checkpoint size the files were published for.
        var size = 0
    }

    /// How many checkpoints a partial entry bundle outlives.
    package static let partialGenerations = 16
    /// The bytes of full tiles and bundles kept (8 MiB: about 45 bundles of 700-byte documents, or a thousand
    /// hash tiles).
    package static let fullTileBudget = 8 << 20
    private let state = Locked(State())
    private let crypto: any TrustCrypto
    private let make: @Sendable (Tile, _ isEntries: Bool) throws -> LogFile?

    /// - Parameter make: makes a tile (`false`) or entry bundle (`true`) the latest checkpoint covers, `nil` when
    ///   it does not cover it; throws when the database cannot be read.
    package init(crypto: any TrustCrypto, make: @escaping @Sendable (Tile, _ isEntries: Bool) throws -> LogFile?) {
        self.crypto = crypto
        self.make = make
    }

    /// The checkpoint size of the files served (0 before the first).
    package var size: Int { state.withLock { $0.size } }

    /// Serves `files` (the checkpoint and partial tiles of a checkpoint of `size`), and the partial entry bundle of
    /// `size` when it is asked for. Full tiles in `files` are left to ``resource(_:)``.
    package func publish(_ files: [LogFile], size: Int) {
        let made = files.filter { !$0.isFull }.map { ($0, $0.resource(prefix: "/log/", version: size, crypto: crypto)) }
        var released: [CachedResource] = []
        state.withLock { state in
            state.generation += 1
            if size % Tile.fullWidth != 0 {
                let tile = Tile(level: 0, index: size / Tile.fullWidth, width: size % Tile.fullWidth)
                state.partials[tile.entriesPath] = Partial(tile: tile, isEntries: true, generation: state.generation)
            }
            for (file, resource) in made {
                if let old = state.files.updateValue(resource, forKey: file.path) { released.append(old) }
                guard let (tile, isEntries) = Tile.parse(path: file.path) else { continue }
                state.partials[file.path] = Partial(tile: tile, isEntries: isEntries, generation: state.generation)
            }
            // Partial hash tiles stay until their full tile exists: a proof keeps the checkpoint that first
            // included its document, so a client holding a smaller checkpoint needs that size's partial tiles for
            // the consistency proof (at most 255 per level, 8 KB each). Partial entry bundles, wanted only by
            // monitors that catch up, go after a few checkpoints.
            let oldest = state.generation - Self.partialGenerations
            for (path, partial) in state.partials
            where partial.tile.index < Tile.hashCount(level: partial.tile.level, treeSize: size) / Tile.fullWidth
                || (partial.isEntries && partial.generation < oldest)
            {
                state.partials[path] = nil
                if let old = state.files.removeValue(forKey: path) { released.append(old) }
            }
            state.size = size
        }
        _ = released  // released here, out of the lock
    }

    /// The file at `path` below `/log/` (`checkpoint`, `tile/0/000`, …), or `nil`. A full tile or bundle, or a
    /// partial bundle, is made the first time it is asked for.
    /// - Throws: the database's error when a bundle cannot be read (a `500`, never a `404` for a file that exists).
    package func resource(_ path: Substring) throws -> CachedResource? {
        let key = String(path)
        enum Found {
            case served(CachedResource)
            case partial(Tile, isEntries: Bool)
            case full(Tile, isEntries: Bool)
            case none
        }
        let found = state.withLock { state -> Found in
            if let file = state.files[key] { return .served(file) }
            if let partial = state.partials[key] { return .partial(partial.tile, isEntries: partial.isEntries) }
            if let cached = state.full.get(key) { return .served(cached) }
            guard let (tile, isEntries) = Tile.parse(path: key), !tile.isPartial,
                tile.index < Tile.hashCount(level: tile.level, treeSize: state.size) / Tile.fullWidth
            else { return .none }
            return .full(tile, isEntries: isEntries)
        }
        switch found {
        case .served(let resource): return resource
        case .none: return nil
        case .partial(let tile, let isEntries):
            guard let file = try make(tile, isEntries) else { return nil }
            let resource = file.resource(prefix: "/log/", version: 0, crypto: crypto)
            return state.withLock { state in
                // Kept only while it is still listed (dropped meanwhile: served this once).
                guard state.partials[key] != nil else { return resource }
                if let served = state.files[key] { return served }
                state.files[key] = resource
                return resource
            }
        case .full(let tile, let isEntries):
            guard let file = try make(tile, isEntries) else { return nil }
            let resource = file.resource(prefix: "/log/", version: 0, crypto: crypto)
            let evicted = state.withLock { $0.full.put(key, resource, bytes: file.body.count) }
            _ = evicted  // released here, out of the lock
            return resource
        }
    }
}
