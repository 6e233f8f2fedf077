import Locking
import MicroHTTPD
import PinSetCore
import TransparencyLog

/// The log's C2SP tlog-tiles files served from memory under `/log/`: the checkpoint, tiles and entry bundles,
/// each a ``CachedResource`` made once when a checkpoint is published (``LogState/files(changedSince:)``).
///
/// A partial hash tile is kept until its full tile exists (a client that holds an older checkpoint may need it
/// to check a proof's consistency); a partial entry bundle is dropped once its full bundle exists or
/// ``partialGenerations`` checkpoints later; full tiles stay for good.
final class LogFileIndex: Sendable {
    private struct State {
        var files: [String: CachedResource] = [:]
        /// Partial entry bundles made only when first asked for (``LogState/bundle(_:)``), by path.
        var lazy: [String: Tile] = [:]
        /// Partial tiles and bundles, with the generation (checkpoint count) that published them.
        var partials: [String: Int] = [:]
        var generation = 0
        /// The checkpoint size the files were published for.
        var size = 0
    }

    /// How many checkpoints a partial entry bundle outlives.
    static let partialGenerations = 16
    private let state = Locked(State())
    private let crypto: any TrustCrypto
    private let makeBundle: @Sendable (Tile) -> LogFile?

    /// - Parameter makeBundle: makes a partial entry bundle when it is first asked for.
    init(crypto: any TrustCrypto, makeBundle: @escaping @Sendable (Tile) -> LogFile?) {
        self.crypto = crypto
        self.makeBundle = makeBundle
    }

    /// The checkpoint size of the files served (0 before the first).
    var size: Int { state.withLock { $0.size } }

    /// Serves `files` (those of a checkpoint of `size`), and the partial entry bundle of `size` when it is asked
    /// for.
    func publish(_ files: [LogFile], size: Int) {
        let made = files.map { ($0, $0.resource(prefix: "/log/", version: size, crypto: crypto)) }
        var released: [CachedResource] = []
        state.withLock { state in
            state.generation += 1
            if size % Tile.fullWidth != 0 {
                let tile = Tile(level: 0, index: size / Tile.fullWidth, width: size % Tile.fullWidth)
                state.lazy[tile.entriesPath] = tile
                state.partials[tile.entriesPath] = state.generation
            }
            for (file, resource) in made {
                if let old = state.files.updateValue(resource, forKey: file.path) { released.append(old) }
                if file.path == "checkpoint" { continue }
                if file.isFull {
                    // The partial versions of this tile are no longer needed.
                    for path in state.partials.keys where path.hasPrefix(file.path + ".p/") {
                        state.partials[path] = nil
                        state.lazy[path] = nil
                        if let old = state.files.removeValue(forKey: path) { released.append(old) }
                    }
                } else {
                    state.partials[file.path] = state.generation
                }
            }
            // Partial hash tiles stay until their full tile exists: a proof keeps the checkpoint that first
            // included its document, so a client holding a smaller checkpoint needs that size's partial tiles for
            // the consistency proof (at most 255 per level, 8 KB each). Partial entry bundles, wanted only by
            // monitors that catch up, go after a few checkpoints.
            let oldest = state.generation - Self.partialGenerations
            for (path, generation) in state.partials where generation < oldest && path.hasPrefix("tile/entries/") {
                state.partials[path] = nil
                state.lazy[path] = nil
                if let old = state.files.removeValue(forKey: path) { released.append(old) }
            }
            state.size = size
        }
        _ = released  // released here, out of the lock
    }

    /// The file at `path` below `/log/` (`checkpoint`, `tile/0/000`, …); a partial entry bundle is made the first
    /// time it is asked for, then kept like the other files.
    func resource(_ path: Substring) -> CachedResource? {
        let key = String(path)
        let (found, lazy) = state.withLock { ($0.files[key], $0.lazy[key]) }
        if let found { return found }
        guard let lazy, let file = makeBundle(lazy) else { return nil }
        let resource = file.resource(prefix: "/log/", version: 0, crypto: crypto)
        return state.withLock { state in
            // Kept only while it is still listed (dropped meanwhile: served this once).
            guard state.lazy.removeValue(forKey: key) != nil else { return state.files[key] ?? resource }
            state.files[key] = resource
            return resource
        }
    }
}
