import Locking
import PinSetAdminAPI
import Synchronization

/// Prometheus counters for the server, kept in pre-allocated atomics so that counting a `GET` costs one
/// relaxed atomic add and no allocation or lock.
final class ServerMetrics: Sendable {
    /// The `route` labels: ``RouteTable/templates``, then ``RouteTable/otherLabel`` (index ``RouteTable/other``).
    private static let routeLabels = RouteTable.templates + [RouteTable.otherLabel]

    /// Every status the server answers with (every status openapi.yaml documents; a test compares them); anything
    /// else is counted as `other`.
    static let statuses = [200, 201, 204, 304, 400, 401, 403, 404, 405, 409, 412, 413, 422, 429, 500, 503]

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private let requests: [Counter]
    private let adminWritesCounter = Counter()
    private let signingErrorsCounter = Counter()
    private let storageErrorsCounter = Counter()
    private let resignedCounter = Counter()
    private let reportsByHost = Locked<[String: Int]>([:])
    /// The monitor's passes so far and the last one (`nil` before the first ends or without a monitor).
    private let monitorPasses = Locked<(count: Int, last: HostMonitor.Pass?)>((0, nil))

    init() {
        requests = (0..<(Self.routeLabels.count * (Self.statuses.count + 1))).map { _ in Counter() }
    }

    /// The position of `status` in ``statuses`` (``statuses``.count for any other): a jump table, on the read path.
    static func statusIndex(_ status: Int) -> Int {
        switch status {
        case 200: 0
        case 201: 1
        case 204: 2
        case 304: 3
        case 400: 4
        case 401: 5
        case 403: 6
        case 404: 7
        case 405: 8
        case 409: 9
        case 412: 10
        case 413: 11
        case 422: 12
        case 429: 13
        case 500: 14
        case 503: 15
        default: 16
        }
    }

    /// Counts one answered request under the route label `route` (a ``RouteTable/templates`` index, or
    /// ``RouteTable/other``).
    @inline(__always)
    func count(_ route: Int, status: Int) {
        requests[route * (Self.statuses.count + 1) + Self.statusIndex(status)].value.add(1, ordering: .relaxed)
    }

    func adminWrite() { adminWritesCounter.value.add(1, ordering: .relaxed) }
    func signingError() { signingErrorsCounter.value.add(1, ordering: .relaxed) }
    func storageError() { storageErrorsCounter.value.add(1, ordering: .relaxed) }
    func resigned(_ count: Int) { resignedCounter.value.add(count, ordering: .relaxed) }
    /// Counts a report under `host`, or under ``otherHostsLabel`` when `host` is `nil` (a name not in the
    /// database: any client can send any name, and labelling each would grow the exposition without bound).
    func report(host: String?) { reportsByHost.withLock { $0[host ?? Self.otherHostsLabel, default: 0] += 1 } }

    /// Records a full monitor pass.
    func monitorPass(_ pass: HostMonitor.Pass) { monitorPasses.withLock { $0 = ($0.count + 1, pass) } }

    /// The `host` label of reports for names the server does not publish (not a DNS name, so it never clashes).
    static let otherHostsLabel = "(other)"

    /// The Prometheus text exposition (format 0.0.4). `delegation` is the trust state of the server's key
    /// (PROTOCOL §6.3), `nil` when it cannot be read. `scope` is the scraper's token's: series labelled with a
    /// host name are given for its hosts only, and without a token (`nil`) not at all (their sum instead).
    func render(
        hosts: Int, builtHosts: Int = 0, delegation: TrustService.Delegation? = nil, scope: TokenScope? = nil
    ) -> String {
        var out = "# HELP pinset_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE pinset_http_requests_total counter\n"
        let width = Self.statuses.count + 1
        for (route, label) in Self.routeLabels.enumerated() {
            for index in 0..<width {
                let value = requests[route * width + index].value.load(ordering: .relaxed)
                guard value > 0 else { continue }
                let status = index < Self.statuses.count ? String(Self.statuses[index]) : "other"
                out += "pinset_http_requests_total{route=\"\(label)\",status=\"\(status)\"} \(value)\n"
            }
        }
        let notModified = requests[RouteTable.pins * width + Self.statusIndex(304)].value.load(ordering: .relaxed)
        out += "# HELP pinset_not_modified_total GET /pins answers that were 304 Not Modified.\n"
        out += "# TYPE pinset_not_modified_total counter\npinset_not_modified_total \(notModified)\n"
        func counter(_ name: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
        }
        counter(
            "pinset_admin_writes_total", "Admin writes committed.", adminWritesCounter.value.load(ordering: .relaxed))
        counter(
            "pinset_signing_errors_total", "Failures to sign a document.",
            signingErrorsCounter.value.load(ordering: .relaxed))
        counter(
            "pinset_storage_errors_total", "Database failures.", storageErrorsCounter.value.load(ordering: .relaxed))
        counter(
            "pinset_resigned_documents_total", "Documents re-signed before expiry.",
            resignedCounter.value.load(ordering: .relaxed))
        let reports = reportsByHost.withLock { $0 }
        counter(
            "pinset_reports_received_total", "Pin failure reports received, every host together.",
            reports.values.reduce(0, +))
        if let scope {
            out +=
                "# HELP pinset_reports_total Pin failure reports received, by host (the token's hosts only).\n# TYPE pinset_reports_total counter\n"
            for (host, value) in reports.sorted(by: { $0.key < $1.key })
            where host == Self.otherHostsLabel ? scope.hosts == nil : scope.covers(host: host) {
                out += "pinset_reports_total{host=\"\(host)\"} \(value)\n"
            }
        }
        out +=
            "# HELP pinset_hosts Hosts with a published document.\n# TYPE pinset_hosts gauge\npinset_hosts \(hosts)\n"
        out +=
            "# HELP pinset_response_cache_hosts Hosts whose built answers are kept in memory (at most --response-cache).\n"
        out += "# TYPE pinset_response_cache_hosts gauge\npinset_response_cache_hosts \(builtHosts)\n"
        let passes = monitorPasses.withLock { $0 }
        if let last = passes.last {
            counter("pinset_monitor_passes_total", "Full passes of the host monitor.", passes.count)
            out +=
                "# HELP pinset_monitor_pass_seconds How long the monitor's last full pass took, first probe start to last probe end.\n"
            out += "# TYPE pinset_monitor_pass_seconds gauge\npinset_monitor_pass_seconds \(last.seconds)\n"
            out += "# HELP pinset_monitor_pass_hosts Hosts probed in the monitor's last full pass.\n"
            out += "# TYPE pinset_monitor_pass_hosts gauge\npinset_monitor_pass_hosts \(last.hosts)\n"
        }
        if let delegation, delegation != .notConfigured {
            out +=
                "# HELP pinset_signing_key_delegated 1 when the newest trust document lists the server's signing key, else 0.\n"
            out += "# TYPE pinset_signing_key_delegated gauge\n"
            out += "pinset_signing_key_delegated \(delegation == .delegated ? 1 : 0)\n"
        }
        return out
    }
}
