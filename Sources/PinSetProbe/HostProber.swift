import Foundation
import OpenSSLCrypto
import PinSetAdminAPI

/// Probes a host the way the pre-flight check and the monitor do: port 443 (or a `--connect-to` mapping),
/// every address the name resolves to (at most ``ProbeConfiguration/addressLimit``), SNI set to the host,
/// no application data. Resolution and handshakes share one deadline, ``ProbeConfiguration/timeout``. For
/// ``ProbeConfiguration/unreachableTTL`` after a probe found it silent, an address that accepted no connection is
/// reported at once for any name, one that accepted it but did not answer TLS only for the same name
/// (``UnansweredAddresses``).
/// Blocking: call it from a thread of its own, never from Swift's cooperative pool.
public struct HostProber: Sendable {
    /// The configuration in force.
    public let configuration: ProbeConfiguration

    /// At most this many handshakes of writes' pre-flight probes run at once, across the process.
    public static let concurrency = 8
    private static let sharedSlots = DispatchSemaphore(value: concurrency)
    /// The handshakes this prober may run at once: the pre-flight's shared pool, or the monitor's own, so that
    /// a monitor pass never delays a write's probe.
    private let slots: DispatchSemaphore
    /// The addresses that recently did not answer (``ProbeConfiguration/unreachableTTL``).
    private let unanswered: UnansweredAddresses

    /// Creates a prober drawing on the pre-flight's shared pool of ``concurrency`` handshakes, remembering
    /// silent addresses in `unanswered` (default: the process's one table).
    public init(configuration: ProbeConfiguration, unanswered: UnansweredAddresses = .shared) {
        self.configuration = configuration
        slots = Self.sharedSlots
        self.unanswered = unanswered
    }

    /// Creates a prober with a pool of its own, `handshakes` wide (the monitor's), remembering silent addresses
    /// in `unanswered` (default: the process's one table, shared with the pre-flight check).
    public init(configuration: ProbeConfiguration, handshakes: Int, unanswered: UnansweredAddresses = .shared) {
        self.configuration = configuration
        slots = DispatchSemaphore(value: max(1, handshakes))
        self.unanswered = unanswered
    }

    /// What each address of `host` serves. Never throws: failures are per address (`error`).
    public func probe(_ host: String) -> [AddressProbe] {
        let rule = configuration.connectTo.first { $0.applies(to: host, port: 443) }
        let target = rule?.targetHost ?? host
        let port = rule?.targetPort ?? 443
        // One deadline for the whole probe: name resolution and every handshake end within `timeout`.
        let deadline = Date().addingTimeInterval(configuration.timeout)
        let addresses: [ProbeAddress]
        do {
            addresses = try AddressResolver.resolve(
                target, port: port, limit: configuration.addressLimit, deadline: configuration.timeout)
        } catch {
            return [AddressProbe(address: target == host ? host : "\(target) (for \(host))", error: error.detail)]
        }
        let ttl = configuration.unreachableTTL
        var attempts = [Attempt?](repeating: nil, count: addresses.count)
        var results = [AddressProbe?](repeating: nil, count: addresses.count)
        for (index, address) in addresses.enumerated() {
            // Only a mapping that names where to connect exempts that destination: one that changes the port
            // alone leaves the host's own addresses, and so the check, as they are (issue 40).
            if rule?.targetHost == nil, !configuration.allowPrivate, let why = AddressPolicy.restriction(address.bytes)
            {
                results[index] = AddressProbe(
                    address: address.description,
                    error:
                        "refused: \(address.ip) is a \(why) address; the server probes only public addresses unless started with --probe-allow-private or a --connect-to mapping names the address to connect to"
                )
                continue
            }
            let attempt = Attempt(address, serverName: host)
            if ttl > 0, let verdict = unanswered.begin(attempt, ttl: ttl, now: Date()) {
                results[index] = verdict.report(address, ttl: ttl, now: Date())
                continue
            }
            attempts[index] = attempt
            start(attempt, of: address, serverName: host, deadline: deadline)
        }
        for (index, address) in addresses.enumerated() {
            guard let attempt = attempts[index] else { continue }
            // Every attempt ends by the deadline (or at once when another probe's verdict settles it); the slack
            // only guards against a thread that never ran.
            results[index] =
                attempt.wait(until: .now() + max(0, deadline.timeIntervalSinceNow) + 1)
                ?? AddressProbe(address: address.description, error: "not probed: no answer by the probe's deadline")
            if ttl > 0 { unanswered.finish(attempt) }
        }
        return results.compactMap { $0 }
    }

    /// Probes `address` on a thread of its own and settles `attempt` with what it found. A probe that got no
    /// answer although it had at least half the configured timeout marks the address as silent: for every name
    /// when the TCP connection was not accepted, for `serverName` only when TLS did not answer (a probe squeezed
    /// by slow name resolution or a wait for a slot proves nothing about the address).
    private func start(_ attempt: Attempt, of address: ProbeAddress, serverName: String, deadline: Date) {
        let slots = slots
        let unanswered = unanswered
        let configuration = configuration
        let thread = Thread {
            slots.wait()
            defer { slots.signal() }
            // Another probe's verdict may have settled this one while it waited for a slot.
            guard !attempt.isSettled else { return }
            // Waiting for a handshake slot counts against the deadline too.
            let timeout = deadline.timeIntervalSinceNow
            guard timeout > 0.05 else {
                attempt.settle(
                    AddressProbe(
                        address: address.description, error: "not probed: the probe's deadline passed while waiting"))
                return
            }
            let (result, code) = Self.probe(address, serverName: serverName, timeout: timeout)
            attempt.settle(result)
            guard configuration.unreachableTTL > 0, timeout >= configuration.timeout / 2 else { return }
            // Silence at the TCP level covers every name at the address; at the TLS level only this one.
            let covered: String?
            switch code {
            case .connectTimeout: covered = nil
            case .handshakeTimeout: covered = serverName
            default: return
            }
            unanswered.remember(
                address, serverName: covered, detail: result.error ?? "no answer in time", now: Date(),
                ttl: configuration.unreachableTTL)
        }
        thread.name = "pinset.probe"
        thread.start()
    }

    /// One address: the chain with its pins, or the error and its code.
    static func probe(_ address: ProbeAddress, serverName: String, timeout: TimeInterval) -> (
        AddressProbe, TLSProbeError.Code?
    ) {
        do {
            let chain = try TLSProbe.presentedChain(to: address, serverName: serverName, timeout: timeout)
            let notAfter = chain[0].notAfter.map { Date(timeIntervalSince1970: Double($0)) }
            return (
                AddressProbe(
                    address: address.description, served: ServedCertificate.chain(chain), leafNotAfter: notAfter),
                nil
            )
        } catch {
            return (AddressProbe(address: address.description, error: error.detail), error.code)
        }
    }
}
