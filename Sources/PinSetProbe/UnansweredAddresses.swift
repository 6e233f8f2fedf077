import Dispatch
import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore

/// The addresses (IP and port, after any `--connect-to` mapping) that recently did not answer a probe, kept by
/// where the silence happened:
/// - no TCP connection within the deadline (no SYN-ACK): the address itself, since no name can be served there;
/// - a TCP connection but no TLS answer to the ClientHello: the address for that server name only, since a proxy
///   that routes by SNI may hang for one dead backend and answer every other name at once.
///
/// A probe matching a verdict less than ``ProbeConfiguration/unreachableTTL`` old reports the address unreachable
/// at once, saying when it last failed, instead of waiting for the deadline again; a probe in flight is settled
/// at once by another probe's verdict under the same rules (a TCP-level one settles the probes of every name at
/// that address, a TLS-level one only those of the same name). Only silence is remembered: an address that
/// answers (or refuses, which is fast) is probed afresh every time, so a write that would lock clients out of a
/// live host is still refused.
///
/// One table per process (``shared``), used by the pre-flight check and the monitor alike. It holds at most
/// `capacity` verdicts; beyond that the oldest are dropped.
public final class UnansweredAddresses: Sendable {
    /// The table every ``HostProber`` uses unless given another.
    public static let shared = UnansweredAddresses()

    /// What a verdict covers: an address for every name (`serverName` `nil`: TCP-level silence), or for one name.
    struct Key: Hashable {
        let address: ProbeAddress
        let serverName: String?
    }

    /// When an address last failed to answer, and how.
    struct Verdict: Sendable {
        /// When the probe gave up.
        let at: Date
        /// The name whose ClientHello got no TLS answer; `nil` when the TCP connection itself was not accepted.
        let serverName: String?
        /// The probe's error (`connecting to 192.0.2.1:443: the connection was not accepted in time`).
        let detail: String

        /// The error reported for a probe of `address` answered by this verdict at `now`.
        func report(_ address: ProbeAddress, ttl: TimeInterval, now: Date) -> AddressProbe {
            let age = Int(now.timeIntervalSince(at).rounded(.down))
            let when = age < 1 ? "just now" : "\(age) s ago"
            let what = serverName.map { "did not answer TLS for \($0)" } ?? "did not accept a connection"
            return AddressProbe(
                address: address.description,
                error:
                    "\(what) \(when) (\(detail)); not probed again until \(RFC3339.format(at.addingTimeInterval(ttl.rounded(.up))))"
            )
        }
    }

    private struct State {
        var verdicts: [Key: Verdict] = [:]
        /// The probes of each address in flight, to settle at once when a verdict covers them.
        var inFlight: [ProbeAddress: [ObjectIdentifier: Attempt]] = [:]

        /// The verdict on `key` if it is younger than `ttl` at `now`; an older one is dropped.
        mutating func current(_ key: Key, ttl: TimeInterval, now: Date) -> Verdict? {
            guard let verdict = verdicts[key] else { return nil }
            if now.timeIntervalSince(verdict.at) < ttl { return verdict }
            verdicts[key] = nil
            return nil
        }
    }

    private let state = Locked(State())
    private let capacity: Int

    /// An empty table holding at most `capacity` verdicts (default 10,000).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The verdict covering `attempt` (its address for any name, or for its server name) if it is younger than
    /// `ttl` at `now`; otherwise `nil`, and `attempt` is registered as a probe in flight until ``finish(_:)``.
    func begin(_ attempt: Attempt, ttl: TimeInterval, now: Date) -> Verdict? {
        state.withLock { state in
            let address = attempt.address
            if let verdict = state.current(Key(address: address, serverName: nil), ttl: ttl, now: now)
                ?? state.current(Key(address: address, serverName: attempt.serverName), ttl: ttl, now: now)
            {
                return verdict
            }
            state.inFlight[address, default: [:]][ObjectIdentifier(attempt)] = attempt
            return nil
        }
    }

    /// `attempt` is over.
    func finish(_ attempt: Attempt) {
        state.withLock { state in
            state.inFlight[attempt.address]?[ObjectIdentifier(attempt)] = nil
            if state.inFlight[attempt.address]?.isEmpty == true { state.inFlight[attempt.address] = nil }
        }
    }

    /// `address` did not answer at `now`: at the TCP level when `serverName` is `nil`, else `serverName`'s
    /// ClientHello got no TLS answer. Remembers it, and settles every probe in flight that the verdict covers
    /// (their own handshakes end by their deadlines; nobody waits for them).
    func remember(_ address: ProbeAddress, serverName: String?, detail: String, now: Date, ttl: TimeInterval) {
        let name = serverName?.lowercased()
        let verdict = Verdict(at: now, serverName: name, detail: detail)
        let waiting = state.withLock { state -> [Attempt] in
            state.verdicts[Key(address: address, serverName: name)] = verdict
            if state.verdicts.count > capacity {
                // Drop the oldest tenth at once, so that a full table does not sort on every insert.
                let oldest = state.verdicts.sorted { $0.value.at < $1.value.at }.prefix(max(1, capacity / 10))
                for (key, _) in oldest { state.verdicts[key] = nil }
            }
            return (state.inFlight[address]?.values).map { $0.filter { name == nil || $0.serverName == name } } ?? []
        }
        for attempt in waiting { attempt.settle(verdict.report(address, ttl: ttl, now: now)) }
    }

    /// How many verdicts the table holds (for tests).
    var count: Int { state.withLock { $0.verdicts.count } }

    /// Drops every verdict on `address` (for tests: a new listener may get a port an earlier one had).
    func forget(_ address: ProbeAddress) {
        state.withLock { state in
            state.verdicts = state.verdicts.filter { $0.key.address != address }
        }
    }
}

/// One probe of one address for one server name, settled once: by its own handshake, or earlier by another
/// probe's verdict that covers it.
final class Attempt: Sendable {
    /// The address probed.
    let address: ProbeAddress
    /// The SNI name sent, lowercased.
    let serverName: String
    private let outcome = Locked<AddressProbe?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// A probe of `address` with SNI `serverName`, not yet settled.
    init(_ address: ProbeAddress, serverName: String) {
        self.address = address
        self.serverName = serverName.lowercased()
    }

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
