import ArgumentParser
import Foundation
import PinSetProbe

/// `pinset serve`'s options for the pre-flight check and the host monitor (issue 14).
struct ProbeOptions: ParsableArguments {
    @Option(help: "Pre-flight check of writes: require, warn or off. Env PINSET_PREFLIGHT. Default warn.")
    var preflight: String?
    @Option(
        help:
            "HOST:PORT:ADDR:PORT (curl's --connect-to): probe ADDR:PORT for HOST:PORT; HOST may be *.SUFFIX. Repeatable. Env PINSET_CONNECT_TO (space-separated)."
    )
    var connectTo: [String] = []
    @Flag(
        help: "Let probes reach loopback, private and link-local addresses (otherwise only a --connect-to mapping can)."
    )
    var probeAllowPrivate = false
    @Option(
        help:
            "Deadline of one probe of a host: name resolution and every handshake (1s-60s). Env PINSET_PROBE_TIMEOUT. Default 5s."
    )
    var probeTimeout: String?
    @Option(
        help:
            "Report a silent address unreachable at once for this long instead of probing it again: for every name when it accepted no TCP connection, for the same name only when it did not answer TLS (0 = always probe; at most 1h). Env PINSET_PROBE_UNREACHABLE_TTL. Default 30s."
    )
    var probeUnreachableTtl: String?
    @Option(
        help:
            "How often the monitor probes every enforcing host (0 = no monitor). Env PINSET_MONITOR_INTERVAL. Default 10m."
    )
    var monitorInterval: String?
    @Option(
        help:
            "Most hosts the monitor probes at once (1-1024), apart from writes' probes. Env PINSET_MONITOR_CONCURRENCY. Default 32."
    )
    var monitorConcurrency: Int?
    @Option(
        help:
            "Warn when a served certificate or the only matching pin expires within this. Env PINSET_EXPIRY_WARNING. Default 21d."
    )
    var expiryWarning: String?
    @Option(
        help:
            "URL a JSON event is POSTed to when the monitor sees a host change state, or the log a fork (event log-fork). Env PINSET_ALERT_WEBHOOK."
    )
    var alertWebhook: String?

    /// The probe configuration these options (and their environment fallbacks) describe.
    func configuration() throws -> ProbeConfiguration {
        var configuration = ProbeConfiguration.served
        let mode = Environment.string(preflight, "PINSET_PREFLIGHT", default: configuration.preflight.rawValue)
        guard let parsed = PreflightMode(rawValue: mode) else {
            throw CLIError("--preflight must be require, warn or off, not \"\(mode)\"")
        }
        configuration.preflight = parsed
        configuration.connectTo = try Self.rules(connectTo)
        configuration.allowPrivate = probeAllowPrivate
        let timeout = try Self.duration(
            probeTimeout, "PINSET_PROBE_TIMEOUT", name: "probe-timeout", default: configuration.timeout)
        guard (1...60).contains(timeout) else {
            throw CLIError("--probe-timeout must be between 1s and 60s, not \(probeTimeout ?? "\(timeout)")")
        }
        configuration.timeout = timeout
        if let text = probeUnreachableTtl ?? Environment.value("PINSET_PROBE_UNREACHABLE_TTL") {
            let ttl = text == "0" || text == "off" ? 0 : try Environment.duration(text, name: "probe-unreachable-ttl")
            guard ttl <= 3600 else { throw CLIError("--probe-unreachable-ttl must be at most 1h, not \(text)") }
            configuration.unreachableTTL = ttl
        }
        if let interval = monitorInterval ?? Environment.value("PINSET_MONITOR_INTERVAL") {
            configuration.monitorInterval =
                interval == "0" || interval == "off"
                ? nil : try Environment.duration(interval, name: "monitor-interval")
        }
        let concurrency = try Environment.int(
            monitorConcurrency, "PINSET_MONITOR_CONCURRENCY", default: configuration.monitorConcurrency)
        guard (1...1024).contains(concurrency) else {
            throw CLIError("--monitor-concurrency must be between 1 and 1024, not \(concurrency)")
        }
        configuration.monitorConcurrency = concurrency
        configuration.expiryWarning = try Self.duration(
            expiryWarning, "PINSET_EXPIRY_WARNING", name: "expiry-warning", default: configuration.expiryWarning)
        if let text = alertWebhook ?? Environment.value("PINSET_ALERT_WEBHOOK"), !text.isEmpty {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw CLIError("--alert-webhook \"\(text)\" is not an http(s) URL")
            }
            configuration.alertWebhook = url
        }
        return configuration
    }

    /// `flag`, else the environment variable `variable`, parsed as a duration; else `fallback`.
    private static func duration(_ flag: String?, _ variable: String, name: String, default fallback: TimeInterval)
        throws -> TimeInterval
    {
        guard let text = flag ?? Environment.value(variable) else { return fallback }
        return try Environment.duration(text, name: name)
    }

    /// Parses `--connect-to` values, falling back to PINSET_CONNECT_TO (space- or comma-separated).
    static func rules(_ flags: [String]) throws -> [ConnectToRule] {
        var texts = flags
        if texts.isEmpty, let env = Environment.value("PINSET_CONNECT_TO") {
            texts = env.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        }
        return try texts.map { text in
            guard let rule = ConnectToRule(text) else {
                throw CLIError(
                    "--connect-to \"\(text)\" is not HOST:PORT:ADDR:PORT (e.g. api.example.com:443:127.0.0.1:8443)")
            }
            return rule
        }
    }
}
