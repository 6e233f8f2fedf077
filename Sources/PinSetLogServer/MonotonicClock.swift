import Foundation

/// Seconds on the monotonic clock (`CLOCK_MONOTONIC`): for waits and ages that must not jump with the wall clock.
/// The log's publisher and the server's readiness read the same clock.
package enum MonotonicClock {
    /// The current reading, in seconds.
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
