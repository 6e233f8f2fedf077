import Foundation
import Locking

/// The result of a `PRAGMA quick_check` running on another thread, waited for once.
package final class QuickCheck: Sendable {
    private let result = Locked<(Result<[String], ServiceError>, TimeInterval)?>(nil)
    private let cpu = Locked<TimeInterval>(0)
    private let done = DispatchSemaphore(value: 0)

    /// Creates a check that has not ended yet.
    package init() {}

    /// `PINSET_MEASURE_STARTUP_CHECKS=off`, for bench/scale.sh only (never in production: a damaged database or
    /// document is then served): start-up skips `PRAGMA quick_check` and the stored documents' hash check, so that
    /// what the checks cost start-up is measured with one binary (issue 41's performance line). Read once.
    package static let measurementOnlyChecksOff =
        getenv("PINSET_MEASURE_STARTUP_CHECKS").map { String(cString: $0) } == "off"

    /// A check that is not run: it found nothing and took no time (``measurementOnlyChecksOff``).
    package static func skipped() -> QuickCheck {
        let check = QuickCheck()
        check.finish(.success([]), seconds: 0)
        return check
    }

    /// Records the check's outcome, how long it took and the CPU its thread spent.
    package func finish(_ outcome: Result<[String], ServiceError>, seconds: TimeInterval, cpuSeconds: TimeInterval = 0)
    {
        result.withLock { $0 = (outcome, seconds) }
        cpu.withLock { $0 = cpuSeconds }
        done.signal()
    }

    /// The CPU seconds the check's thread spent (0 until it finished).
    package var cpuSeconds: TimeInterval { cpu.withLock { $0 } }

    /// The CPU time the calling thread has used so far, in seconds (`CLOCK_THREAD_CPUTIME_ID`): start-up's log
    /// line tells the load's CPU from quick_check's, which wall-clock times cannot on a busy machine (bench/scale.sh).
    package static func threadCPUSeconds() -> TimeInterval {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
    }

    /// Blocks until the check ends: the problems found (none when sound) and its duration in seconds.
    package func wait() throws(ServiceError) -> (problems: [String], seconds: TimeInterval) {
        done.wait()
        done.signal()
        guard let (outcome, seconds) = result.withLock({ $0 }) else { return ([], 0) }
        return (try outcome.get(), seconds)
    }
}
