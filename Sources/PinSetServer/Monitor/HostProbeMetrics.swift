/// The monitor's gauges in the Prometheus exposition; labels only for hosts in the database.
enum HostProbeMetrics {
    /// `pinset_host_pins_match{host}` and `pinset_host_certificate_expiry_seconds{host}`, from the last
    /// probe of each monitored host. An empty exposition part (headers only) when the database fails.
    static func render(_ store: PinDatabase) -> String {
        let gauges = (try? store.read { db in try HostProbeTable.gauges(db) }) ?? []
        var out =
            "# HELP pinset_host_pins_match Whether every address of a host served a chain its set matches at the last probe (1) or not (0).\n"
        out += "# TYPE pinset_host_pins_match gauge\n"
        for gauge in gauges { out += "pinset_host_pins_match{host=\"\(gauge.host)\"} \(gauge.match ? 1 : 0)\n" }
        out +=
            "# HELP pinset_host_certificate_expiry_seconds The notAfter of the earliest-expiring leaf a host served, in seconds since 1970.\n"
        out += "# TYPE pinset_host_certificate_expiry_seconds gauge\n"
        for gauge in gauges {
            guard let notAfter = gauge.leafNotAfter else { continue }
            out += "pinset_host_certificate_expiry_seconds{host=\"\(gauge.host)\"} \(notAfter)\n"
        }
        return out
    }
}
