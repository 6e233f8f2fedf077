import Foundation
import Locking
import Logging
import PinSetLogServer
import PinSetStorage

/// The storage's watchman, on a thread of its own (``PeriodicWorker``): every tick it checks the database's files
/// (``PinDatabase/checkFiles()``: replaced or deleted under the server), runs a passive WAL checkpoint (SQLite's
/// automatic ones never report a failure: an immutable or read-only database file would let the WAL grow without
/// a word; with nothing to copy it costs microseconds) and looks at the descriptors in use. Failures are logged,
/// at most once a minute each.
final class StorageWatch: Sendable {
    private let worker: PeriodicWorker

    /// Starts watching `store` every `interval` seconds.
    init(store: PinDatabase, interval: TimeInterval, logger: Logger) {
        let limiter = LogLimiter()
        worker = PeriodicWorker(name: "pinset.storage-watch") { _ in
            store.watchFiles()
            if !store.health.current.contains(where: { $0.kind == .fileReplaced }) {
                do {
                    let (frames, checkpointed) = try store.checkpoint()
                    store.checkpointFailed(false)
                    if frames > 0, checkpointed < frames, frames > 10_000, limiter.due("wal") {
                        logger.warning(
                            "the WAL keeps growing: a reader holds it, or checkpoints cannot finish",
                            metadata: ["walFrames": "\(frames)", "walBytes": "\(store.walBytes)"])
                    }
                } catch {
                    store.checkpointFailed(true)
                    if limiter.due("checkpoint") {
                        logger.error(
                            "WAL checkpoint failed: the WAL grows until the database file can be written again (is it read-only, immutable, or the disk failing?)",
                            metadata: ["walBytes": "\(store.walBytes)", "error": "\(error)"])
                    }
                }
                if let (open, limit) = Descriptors.usage(), limit > 0, open >= limit - max(16, limit / 20),
                    limiter.due("descriptors")
                {
                    logger.error(
                        "file descriptors nearly exhausted: new connections cannot be accepted; raise the limit (ulimit -n, LimitNOFILE) or lower --connection-limit",
                        metadata: ["open": "\(open)", "limit": "\(limit)"])
                }
            }
            return interval
        }
    }

    /// Stops watching (before the database closes: closing removes the `-wal` and `-shm` files).
    func stop() { worker.stop() }
}

/// Lets each kind of log line through at most once a minute.
final class LogLimiter: Sendable {
    private let last = Locked<[String: Date]>([:])

    /// Whether a line of `kind` may be logged now (and records it).
    func due(_ kind: String, every seconds: TimeInterval = 60) -> Bool {
        last.withLock { last in
            let now = Date()
            if let previous = last[kind], now.timeIntervalSince(previous) < seconds, now >= previous { return false }
            last[kind] = now
            return true
        }
    }
}
