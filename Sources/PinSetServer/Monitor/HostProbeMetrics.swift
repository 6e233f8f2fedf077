import PinSetAdminAPI
import PinSetStorage
/// The monitor's gauges in the Prometheus exposition; labels only for hosts in the database, and only for a scraper
/// with a token (its hosts); everyone gets the aggregates.
enum HostProbeMetrics {
    /// `pinset_monitored_hosts`, `pinset_monitored_hosts_mismatched` and
    /// `pinset_monitored_certificate_expiry_earliest_seconds` for everyone; with a token's `scope`,
    /// `pinset_host_pins_match{host}` and `pinset_host_certificate_expiry_seconds{host}` for the hosts it covers,
    /// from the last probe of each monitored host. An empty exposition part (headers only) when the database fails.
    static func render(_ store: PinDatabase, scope: TokenScope? = nil) -> String {
        let gauges = (try? store.read { db in try HostProbeTable.gauges(db) }) ?? []
        var out = "# HELP pinset_monitored_hosts Hosts with a monitor result.\n"
        out += "# TYPE pinset_monitored_hosts gauge\npinset_monitored_hosts \(gauges.count)\n"
        out +=
            "# HELP pinset_monitored_hosts_mismatched Hosts where an address served a chain their set does not match at the last probe.\n"
        out += "# TYPE pinset_monitored_hosts_mismatched gauge\n"
        out += "pinset_monitored_hosts_mismatched \(gauges.filter { !$0.match }.count)\n"
        if let earliest = gauges.compactMap(\.leafNotAfter).min() {
            out +=
                "# HELP pinset_monitored_certificate_expiry_earliest_seconds The earliest notAfter of any leaf a monitored host served, in seconds since 1970.\n"
            out += "# TYPE pinset_monitored_certificate_expiry_earliest_seconds gauge\n"
            out += "pinset_monitored_certificate_expiry_earliest_seconds \(earliest)\n"
        }
        guard let scope else { return out }
        let named = gauges.filter { scope.covers(host: $0.host) }
        out +=
            "# HELP pinset_host_pins_match Whether every address of a host served a chain its set matches at the last probe (1) or not (0).\n"
        out += "# TYPE pinset_host_pins_match gauge\n"
        for gauge in named { out += "pinset_host_pins_match{host=\"\(gauge.host)\"} \(gauge.match ? 1 : 0)\n" }
        out +=
            "# HELP pinset_host_certificate_expiry_seconds The notAfter of the earliest-expiring leaf a host served, in seconds since 1970.\n"
        out += "# TYPE pinset_host_certificate_expiry_seconds gauge\n"
        for gauge in named {
            guard let notAfter = gauge.leafNotAfter else { continue }
            out += "pinset_host_certificate_expiry_seconds{host=\"\(gauge.host)\"} \(notAfter)\n"
        }
        return out
    }
}
