import Dispatch
import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore

/// The addresses (IP and port, after any `--connect-to` mapping) that recently did not answer a probe: no TCP
/// connection or no TLS answer within the deadline. A probe of such an address within
/// ``ProbeConfiguration/unreachableTTL`` reports it unreachable at once, saying when it last failed, instead of
/// waiting for the deadline again; probes of one address that run at the same time share the first one's
/// verdict. Only silence is remembered: an address that answers (or refuses, which is fast) is probed afresh
/// every time, so a write that would lock clients out of a live host is still refused.
///
/// One table per process (``shared``), used by the pre-flight check and the monitor alike. It holds at most
/// `capacity` addresses; beyond that the oldest verdicts are dropped.
public final class UnansweredAddresses: Sendable {
    /// The table every ``HostProber`` uses unless given another.
    public static let shared = UnansweredAddresses()

    /// When an address last failed to answer, and how.
    struct Verdict: Sendable {
        /// When the probe gave up.
        let at: Date
        /// The probe's error (`connecting to 192.0.2.1:443: no answer in time`).
        let detail: String

        /// The error reported for a probe of `address` answered by this verdict at `now`.
        func report(_ address: ProbeAddress, ttl: TimeInterval, now: Date) -> AddressProbe {
            let age = Int(now.timeIntervalSince(at).rounded(.down))
            let when = age < 1 ? "just now" : "\(age) s ago"
            return AddressProbe(
                address: address.description,
                error:
                    "did not answer \(when) (\(detail)); not probed again until \(RFC3339.format(at.addingTimeInterval(ttl.rounded(.up))))"
            )
        }
    }

    private struct State {
        var verdicts: [ProbeAddress: Verdict] = [:]
        /// The probes of each address in flight, to settle at once when one of them gets no answer.
        var inFlight: [ProbeAddress: [ObjectIdentifier: Attempt]] = [:]
    }

    private let state = Locked(State())
    private let capacity: Int

    /// An empty table holding at most `capacity` addresses (default 10,000).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The verdict on `address` if it failed to answer less than `ttl` seconds before `now`; otherwise `nil`,
    /// and `attempt` is registered as a probe of it in flight until ``finish(_:of:)``.
    func begin(_ attempt: Attempt, of address: ProbeAddress, ttl: TimeInterval, now: Date) -> Verdict? {
        state.withLock { state in
            if let verdict = state.verdicts[address] {
                if now.timeIntervalSince(verdict.at) < ttl { return verdict }
                state.verdicts[address] = nil
            }
            state.inFlight[address, default: [:]][ObjectIdentifier(attempt)] = attempt
            return nil
        }
    }

    /// `attempt` of `address` is over.
    func finish(_ attempt: Attempt, of address: ProbeAddress) {
        state.withLock { state in
            state.inFlight[address]?[ObjectIdentifier(attempt)] = nil
            if state.inFlight[address]?.isEmpty == true { state.inFlight[address] = nil }
        }
    }

    /// `address` did not answer at `now`: remember it, and settle every other probe of it in flight with the
    /// verdict (their own handshakes end by their deadlines; nobody waits for them).
    func remember(_ address: ProbeAddress, detail: String, now: Date, ttl: TimeInterval) {
        let verdict = Verdict(at: now, detail: detail)
        let waiting = state.withLock { state -> [Attempt] in
            state.verdicts[address] = verdict
            if state.verdicts.count > capacity {
                // Drop the oldest tenth at once, so that a full table does not sort on every insert.
                let oldest = state.verdicts.sorted { $0.value.at < $1.value.at }.prefix(max(1, capacity / 10))
                for (key, _) in oldest { state.verdicts[key] = nil }
            }
            return state.inFlight[address].map { Array($0.values) } ?? []
        }
        for attempt in waiting { attempt.settle(verdict.report(address, ttl: ttl, now: now)) }
    }

    /// How many addresses the table holds (for tests).
    var count: Int { state.withLock { $0.verdicts.count } }

    /// Drops the verdict on `address` (for tests: a new listener may get a port an earlier one had).
    func forget(_ address: ProbeAddress) { state.withLock { $0.verdicts[address] = nil } }
}

/// One probe of one address, settled once: by its own handshake, or earlier by another probe's verdict that the
/// address does not answer.
final class Attempt: Sendable {
    private let outcome = Locked<AddressProbe?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Settles the attempt with `probe` unless it is settled already.
    func settle(_ probe: AddressProbe) {
        let first = outcome.withLock { outcome in
            guard outcome == nil else { return false }
            outcome = probe
            return true
        }
        if first { done.signal() }
    }

    /// Whether the attempt is settled.
    var isSettled: Bool { outcome.withLock { $0 != nil } }

    /// The outcome, waiting for it until `deadline`; `nil` when it did not come.
    func wait(until deadline: DispatchTime) -> AddressProbe? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        return outcome.withLock { $0 }
    }
}
