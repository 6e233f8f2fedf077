import Foundation
import Locking

/// Runs blocking work (SQLite, signing, network probes) every `interval` seconds on a thread of its own:
/// never on Swift's cooperative thread pool, where a blocking call would starve every task, and never on the
/// HTTP threads. The first run starts at once. ``stop()`` wakes the thread, waits for a run in progress to end,
/// and returns; the worker never runs again.
final class PeriodicWorker: Sendable {
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    private struct State {
        var stopped = false
    }

    /// Starts the thread.
    /// - Parameters:
    ///   - name: the thread's name, for debuggers and `top -H`.
    ///   - interval: seconds between the end of one run and the start of the next.
    ///   - work: the blocking work; it must not throw (log inside it).
    init(name: String, interval: TimeInterval, work: @escaping @Sendable () -> Void) {
        let thread = Thread { [state, wake, done] in
            while !state.withLock({ $0.stopped }) {
                work()
                _ = wake.wait(timeout: .now() + max(0.001, interval))
            }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the worker: wakes a sleeping thread and waits for a run in progress. Idempotent.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        wake.signal()
        done.wait()
    }
}
