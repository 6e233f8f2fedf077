import Foundation
import Locking

/// Runs blocking work (SQLite, signing, network probes) again and again on a thread of its own: never on Swift's
/// cooperative thread pool, where a blocking call would starve every task, and never on the HTTP threads. The
/// first run starts at once. ``stop(waitingAtMost:)`` wakes the thread, waits for a run in progress to end, and
/// returns; the worker never runs again. The re-signer and the host monitor both run on one.
package final class PeriodicWorker: Sendable {
    private let stopped = Locked(false)
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Starts the thread: `work`, then a pause of `interval` seconds, and again.
    /// - Parameters:
    ///   - name: the thread's name, for debuggers and `top -H`.
    ///   - interval: seconds between the end of one run and the start of the next.
    ///   - work: the blocking work; it must not throw (log inside it).
    package convenience init(name: String, interval: TimeInterval, work: @escaping @Sendable () -> Void) {
        self.init(name: name) { _ in
            work()
            return interval
        }
    }

    /// Starts the thread: `work` returns how many seconds to pause before its next run, and may itself pause
    /// with ``pause(_:)`` (which ends early when the worker stops).
    package init(name: String, work: @escaping @Sendable (PeriodicWorker) -> TimeInterval) {
        let thread = Thread { [self] in
            while !isStopped {
                let delay = work(self)
                guard pause(delay) else { break }
            }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Whether ``stop(waitingAtMost:)`` was called.
    package var isStopped: Bool { stopped.withLock { $0 } }

    /// Sleeps `seconds`, or less when the worker stops. Returns `false` when stopped.
    package func pause(_ seconds: TimeInterval) -> Bool {
        guard !isStopped else { return false }
        _ = wake.wait(timeout: .now() + max(0.001, seconds))
        guard !isStopped else {
            wake.signal()  // every later pause returns at once too
            return false
        }
        return true
    }

    /// Ends the current pause early (the next run starts at once); a run in progress is not interrupted, and the
    /// pause after it ends at once.
    package func wakeUp() {
        guard !isStopped else { return }
        wake.signal()
    }

    /// Stops the worker: wakes a sleeping thread and waits for a run in progress, at most `seconds` when given.
    /// Idempotent.
    package func stop(waitingAtMost seconds: TimeInterval? = nil) {
        let first = stopped.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        wake.signal()
        if let seconds {
            _ = done.wait(timeout: .now() + seconds)
        } else {
            done.wait()
        }
    }
}
