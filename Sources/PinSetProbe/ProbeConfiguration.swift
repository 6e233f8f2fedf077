import Foundation

/// What the pre-flight check does with a write when the host cannot be probed.
public enum PreflightMode: String, Sendable, CaseIterable {
    /// Refuse the write (`422`, rule `preflight-unreachable`) unless it is forced.
    case require
    /// Let the write through and say so in its answer (`"preflight": {"status": "unreachable"}`).
    case warn
    /// No pre-flight check at all.
    case off
}

/// How the server probes live hosts: the pre-flight check of writes and the background monitor.
/// Every field has a default.
public struct ProbeConfiguration: Sendable {
    /// The pre-flight mode. Default ``PreflightMode/off`` here, so that embedding code and tests never touch
    /// the network unless asked; a served pin server starts from ``served`` (``PreflightMode/warn``).
    public var preflight: PreflightMode
    /// `HOST:PORT:ADDR:PORT` mappings (curl's `--connect-to`): probe another address for a host. A mapping
    /// also allows the address it names, even a loopback or private one.
    public var connectTo: [ConnectToRule]
    /// Probe loopback, private and link-local addresses too. Default `false`.
    /// - Warning: without this the server cannot be made to probe its own network (SSRF).
    public var allowPrivate: Bool
    /// Seconds one probe of a host may take: name resolution and the handshakes with its addresses (in
    /// parallel) all end within it. Default 5.
    public var timeout: TimeInterval
    /// Most addresses probed per host. Default 8.
    public var addressLimit: Int
    /// Seconds a silent address is reported unreachable at once instead of probed again: for every name when it
    /// accepted no TCP connection within the deadline, for the same name only when it accepted the connection but
    /// did not answer TLS (a proxy routing by SNI may hang for one name only). Probes already in flight share the
    /// verdict under the same rules. An address that answers, or refuses, is probed afresh every time. Default 30;
    /// 0 remembers nothing.
    public var unreachableTTL: TimeInterval
    /// How often the monitor probes every enforcing host; `nil` (the default here) runs no monitor.
    /// ``served`` probes every 10 minutes. Probes are spread across the interval.
    public var monitorInterval: TimeInterval?
    /// Most hosts the monitor probes at once (each with its own addresses), apart from the pre-flight probes
    /// of writes, which never wait for the monitor. Default 32.
    public var monitorConcurrency: Int
    /// A served leaf certificate or the only matching pin expiring within this many seconds is a warning.
    /// Default 21 days.
    public var expiryWarning: TimeInterval
    /// Where the monitor POSTs a JSON event when a host's state changes. Default none.
    public var alertWebhook: URL?

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        preflight: PreflightMode = .off, connectTo: [ConnectToRule] = [], allowPrivate: Bool = false,
        timeout: TimeInterval = 5, addressLimit: Int = 8, monitorInterval: TimeInterval? = nil,
        expiryWarning: TimeInterval = 21 * 86_400, alertWebhook: URL? = nil, monitorConcurrency: Int = 32,
        unreachableTTL: TimeInterval = 30
    ) {
        self.unreachableTTL = max(0, unreachableTTL)
        self.monitorConcurrency = max(1, monitorConcurrency)
        self.preflight = preflight
        self.connectTo = connectTo
        self.allowPrivate = allowPrivate
        self.timeout = timeout
        self.addressLimit = addressLimit
        self.monitorInterval = monitorInterval
        self.expiryWarning = expiryWarning
        self.alertWebhook = alertWebhook
    }
}

extension ProbeConfiguration {
    /// The defaults of a served pin server (`pinset serve`, and the CLI's own probes): the pre-flight check warns
    /// (``PreflightMode/warn``) and the monitor probes every 10 minutes; every other field as ``init(preflight:connectTo:allowPrivate:timeout:addressLimit:monitorInterval:expiryWarning:alertWebhook:monitorConcurrency:unreachableTTL:)``.
    /// The one place these defaults are written: the CLI's flags and help fall back to them.
    public static let served = ProbeConfiguration(preflight: .warn, monitorInterval: 600)
}
