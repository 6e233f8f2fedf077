import Locking
import MicroHTTPD
import PinSetCore
import TransparencyLog

/// The log's C2SP tlog-tiles files served from memory under `/log/`: the checkpoint, tiles and entry bundles,
/// each a ``CachedResource`` made once when a checkpoint is published (``LogState/files(changedSince:)``).
///
/// A partial tile is kept while a few later checkpoints are published (a client that holds an older checkpoint
/// may still ask for it), and dropped once its full tile exists or ``partialGenerations`` checkpoints later;
/// full tiles stay for good.
final class LogFileIndex: Sendable {
    private struct State {
        var files: [String: CachedResource] = [:]
        /// Partial tiles and bundles, with the generation (checkpoint count) that published them.
        var partials: [String: Int] = [:]
        var generation = 0
        /// The checkpoint size the files were published for.
        var size = 0
    }

    /// How many checkpoints a partial tile outlives.
    static let partialGenerations = 16
    private let state = Locked(State())
    private let crypto: any TrustCrypto

    init(crypto: any TrustCrypto) {
        self.crypto = crypto
    }

    /// The checkpoint size of the files served (0 before the first).
    var size: Int { state.withLock { $0.size } }

    /// Serves `files` (those of a checkpoint of `size`).
    func publish(_ files: [LogFile], size: Int) {
        let made = files.map { ($0, $0.resource(prefix: "/log/", version: size, crypto: crypto)) }
        var released: [CachedResource] = []
        state.withLock { state in
            state.generation += 1
            for (file, resource) in made {
                if let old = state.files.updateValue(resource, forKey: file.path) { released.append(old) }
                if file.path == "checkpoint" { continue }
                if file.isFull {
                    // The partial versions of this tile are no longer needed.
                    for path in state.partials.keys where path.hasPrefix(file.path + ".p/") {
                        state.partials[path] = nil
                        if let old = state.files.removeValue(forKey: path) { released.append(old) }
                    }
                } else {
                    state.partials[file.path] = state.generation
                }
            }
            let oldest = state.generation - Self.partialGenerations
            for (path, generation) in state.partials where generation < oldest {
                state.partials[path] = nil
                if let old = state.files.removeValue(forKey: path) { released.append(old) }
            }
            state.size = size
        }
        _ = released  // released here, out of the lock
    }

    /// The file at `path` below `/log/` (`checkpoint`, `tile/0/000`, …).
    func resource(_ path: Substring) -> CachedResource? {
        state.withLock { $0.files[String(path)] }
    }
}
