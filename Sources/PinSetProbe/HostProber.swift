import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI

/// Probes a host the way the pre-flight check and the monitor do: port 443 (or a `--connect-to` mapping),
/// every address the name resolves to (at most ``ProbeConfiguration/addressLimit``), SNI set to the host,
/// no application data. Resolution and handshakes share one deadline, ``ProbeConfiguration/timeout``. Blocking: call it from a thread of its own, never from Swift's cooperative pool.
public struct HostProber: Sendable {
    /// The configuration in force.
    public let configuration: ProbeConfiguration

    /// At most this many handshakes of writes' pre-flight probes run at once, across the process.
    public static let concurrency = 8
    private static let sharedSlots = DispatchSemaphore(value: concurrency)
    /// The handshakes this prober may run at once: the pre-flight's shared pool, or the monitor's own, so that
    /// a monitor pass never delays a write's probe.
    private let slots: DispatchSemaphore

    /// Creates a prober drawing on the pre-flight's shared pool of ``concurrency`` handshakes.
    public init(configuration: ProbeConfiguration) {
        self.configuration = configuration
        slots = Self.sharedSlots
    }

    /// Creates a prober with a pool of its own, `handshakes` wide (the monitor's).
    public init(configuration: ProbeConfiguration, handshakes: Int) {
        self.configuration = configuration
        slots = DispatchSemaphore(value: max(1, handshakes))
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
        let results = Locked([AddressProbe?](repeating: nil, count: addresses.count))
        let group = DispatchGroup()
        for (index, address) in addresses.enumerated() {
            if rule == nil, !configuration.allowPrivate, let why = AddressPolicy.restriction(address.bytes) {
                let refusal = AddressProbe(
                    address: address.description,
                    error:
                        "refused: \(address.ip) is a \(why) address; the server probes only public addresses unless started with --probe-allow-private or a --connect-to mapping names the host"
                )
                results.withLock { $0[index] = refusal }
                continue
            }
            group.enter()
            let slots = slots
            let thread = Thread {
                slots.wait()
                defer {
                    slots.signal()
                    group.leave()
                }
                // Waiting for a handshake slot counts against the deadline too.
                let timeout = deadline.timeIntervalSinceNow
                let result =
                    timeout > 0.05
                    ? Self.probe(address, serverName: host, timeout: timeout)
                    : AddressProbe(
                        address: address.description, error: "not probed: the probe's deadline passed while waiting")
                results.withLock { $0[index] = result }
            }
            thread.name = "pinset.probe"
            thread.start()
        }
        group.wait()
        return results.withLock { $0.compactMap { $0 } }
    }

    /// One address: the chain with its pins, or the error.
    static func probe(_ address: ProbeAddress, serverName: String, timeout: TimeInterval) -> AddressProbe {
        do {
            let chain = try TLSProbe.presentedChain(to: address, serverName: serverName, timeout: timeout)
            let notAfter = CertificateParser.notAfter(der: chain[0]).map { Date(timeIntervalSince1970: Double($0)) }
            return AddressProbe(
                address: address.description, served: ServedCertificate.chain(chain), leafNotAfter: notAfter)
        } catch {
            return AddressProbe(address: address.description, error: error.detail)
        }
    }
}
