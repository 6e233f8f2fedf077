import Foundation
import Locking

/// Batches handed from one producing thread to one consuming thread, in order, with at most `limit` waiting: the
/// start-up load's two halves (``DocumentIndex/load(from:)``). Both sides block: only for threads of their own,
/// never for Swift's cooperative pool.
final class BatchHandoff<Batch: Sendable>: Sendable {
    private let queue = Locked<[Batch?]>([])
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)

    /// A handoff holding at most `limit` batches not yet taken.
    init(limit: Int) {
        precondition(limit > 0)
        free = DispatchSemaphore(value: limit)
    }

    /// Hands `batch` over, waiting while `limit` batches are not yet taken.
    func put(_ batch: Batch) {
        free.wait()
        queue.withLock { $0.append(batch) }
        ready.signal()
    }

    /// Says no batch follows: ``take()`` then returns `nil` once the batches before are taken.
    func finish() {
        queue.withLock { $0.append(nil) }
        ready.signal()
    }

    /// The next batch, waiting for it; `nil` after ``finish()``.
    func take() -> Batch? {
        ready.wait()
        guard let batch = queue.withLock({ $0.removeFirst() }) else { return nil }
        free.signal()
        return batch
    }
}
