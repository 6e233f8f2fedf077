import Foundation
import Locking

/// The result of a `PRAGMA quick_check` running on another thread, waited for once.
package final class QuickCheck: Sendable {
    private let result = Locked<(Result<[String], ServiceError>, TimeInterval)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Creates a check that has not ended yet.
    package init() {}

    /// Records the check's outcome and how long it took.
    package func finish(_ outcome: Result<[String], ServiceError>, seconds: TimeInterval) {
        result.withLock { $0 = (outcome, seconds) }
        done.signal()
    }

    /// Blocks until the check ends: the problems found (none when sound) and its duration in seconds.
    package func wait() throws(ServiceError) -> (problems: [String], seconds: TimeInterval) {
        done.wait()
        done.signal()
        guard let (outcome, seconds) = result.withLock({ $0 }) else { return ([], 0) }
        return (try outcome.get(), seconds)
    }
}
