import Foundation
import Locking

/// A token bucket per source address: `capacity` reports at once, refilled at `capacity` per minute.
/// The table is bounded: when it grows past `maxAddresses`, full (idle) buckets are dropped.
final class ReportRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    private let capacity: Double
    private let maxAddresses = 50_000
    private let buckets = Locked<[String: Bucket]>([:])

    init(perMinute: Int) {
        capacity = Double(max(1, perMinute))
    }

    /// Takes one token for `address`; returns `nil` when allowed, else the seconds to wait.
    func take(_ address: String, now: TimeInterval = ProcessInfo.processInfo.systemUptime) -> Int? {
        let rate = capacity / 60
        return buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            defer {
                buckets[address] = bucket
                if buckets.count > maxAddresses {
                    buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < capacity }
                }
            }
            guard bucket.tokens >= 1 else { return Int(((1 - bucket.tokens) / rate).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}
