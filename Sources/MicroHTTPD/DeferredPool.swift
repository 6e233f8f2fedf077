import Foundation

/// The threads that run deferred work (``HTTPResponse/deferred(_:)``): created when needed, at most `maxThreads`,
/// then kept and reused, so a deferred request no longer pays for a new thread (20–50 µs each).
///
/// A job waits in the queue only when every thread is busy; the queue itself is bounded by the caller (each job
/// holds a suspended connection, and ``ServerContext/register(_:_:)`` caps those). A thread stays while it has
/// work or waits for some; ``stop()`` lets the queued jobs run, then ends the threads.
final class DeferredPool: @unchecked Sendable {
    private let condition = NSCondition()
    /// Jobs not yet taken, oldest first from `head`. Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    /// Threads alive, and those of them waiting for a job. Guarded by `condition`.
    private var threads = 0
    private var idle = 0
    private var stopping = false
    private let maxThreads: Int

    /// A pool of at most `maxThreads` threads (at least 1).
    init(maxThreads: Int) {
        self.maxThreads = max(1, maxThreads)
    }

    /// Threads alive now.
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Runs `job` on a pool thread: an idle one, a new one while under `maxThreads`, or the first to be free.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // Each idle thread takes one queued job; a new thread is started only for a job no idle thread will take.
        let spawn = jobs.count - head > idle && threads < maxThreads && !stopping
        if spawn { threads += 1 }
        condition.signal()
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in work() }
            thread.name = "pinset.deferred"
            thread.start()
        }
    }

    /// Ends the threads once the queue is empty; jobs already queued still run. Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while head == jobs.count && !stopping {
                idle += 1
                condition.wait()
                idle -= 1
            }
            if head == jobs.count {
                threads -= 1
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
