import Locking

import Synchronization

/// Prometheus counters for the server, kept in pre-allocated atomics so that counting a `GET` costs one
/// relaxed atomic add and no allocation or lock.
final class ServerMetrics: Sendable {
    /// The routes requests are counted by; the raw value is the `route` label.
    enum Route: Int, CaseIterable, Sendable {
        case pins, keys, healthz, metrics, reports, adminHosts, adminHost, adminPins, adminPin, adminHistory
        case adminReports, unknown

        var label: String {
            switch self {
            case .pins: "/pins/{host}"
            case .keys: "/keys"
            case .healthz: "/healthz"
            case .metrics: "/metrics"
            case .reports: "/reports"
            case .adminHosts: "/admin/hosts"
            case .adminHost: "/admin/hosts/{host}"
            case .adminPins: "/admin/hosts/{host}/pins"
            case .adminPin: "/admin/hosts/{host}/pins/{sha256}"
            case .adminHistory: "/admin/hosts/{host}/history"
            case .adminReports: "/admin/reports"
            case .unknown: "other"
            }
        }
    }

    /// Every status the server answers with; anything else is counted as `other`.
    private static let statuses = [200, 201, 204, 304, 400, 401, 404, 405, 412, 413, 422, 429, 500, 503]

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    private let requests: [Counter]
    private let adminWritesCounter = Counter()
    private let signingErrorsCounter = Counter()
    private let storageErrorsCounter = Counter()
    private let resignedCounter = Counter()
    private let reportsByHost = Locked<[String: Int]>([:])

    init() {
        requests = (0..<(Route.allCases.count * (Self.statuses.count + 1))).map { _ in Counter() }
    }

    private static func statusIndex(_ status: Int) -> Int {
        switch status {
        case 200: 0
        case 201: 1
        case 204: 2
        case 304: 3
        case 400: 4
        case 401: 5
        case 404: 6
        case 405: 7
        case 412: 8
        case 413: 9
        case 422: 10
        case 429: 11
        case 500: 12
        case 503: 13
        default: 14
        }
    }

    /// Counts one answered request.
    @inline(__always)
    func count(_ route: Route, status: Int) {
        requests[route.rawValue * (Self.statuses.count + 1) + Self.statusIndex(status)].value
            .add(1, ordering: .relaxed)
    }

    func adminWrite() { adminWritesCounter.value.add(1, ordering: .relaxed) }
    func signingError() { signingErrorsCounter.value.add(1, ordering: .relaxed) }
    func storageError() { storageErrorsCounter.value.add(1, ordering: .relaxed) }
    func resigned(_ count: Int) { resignedCounter.value.add(count, ordering: .relaxed) }
    /// Counts a report under `host`, or under ``otherHostsLabel`` when `host` is `nil` (a name not in the
    /// database: any client can send any name, and labelling each would grow the exposition without bound).
    func report(host: String?) { reportsByHost.withLock { $0[host ?? Self.otherHostsLabel, default: 0] += 1 } }

    /// The `host` label of reports for names the server does not publish (not a DNS name, so it never clashes).
    static let otherHostsLabel = "(other)"

    /// The Prometheus text exposition (format 0.0.4).
    func render(hosts: Int) -> String {
        var out = "# HELP pinset_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE pinset_http_requests_total counter\n"
        let width = Self.statuses.count + 1
        for route in Route.allCases {
            for index in 0..<width {
                let value = requests[route.rawValue * width + index].value.load(ordering: .relaxed)
                guard value > 0 else { continue }
                let status = index < Self.statuses.count ? String(Self.statuses[index]) : "other"
                out += "pinset_http_requests_total{route=\"\(route.label)\",status=\"\(status)\"} \(value)\n"
            }
        }
        let notModified = requests[ServerMetrics.Route.pins.rawValue * width + 3].value.load(ordering: .relaxed)
        out += "# HELP pinset_not_modified_total GET /pins answers that were 304 Not Modified.\n"
        out += "# TYPE pinset_not_modified_total counter\npinset_not_modified_total \(notModified)\n"
        func counter(_ name: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
        }
        counter("pinset_admin_writes_total", "Admin writes committed.", adminWritesCounter.value.load(ordering: .relaxed))
        counter("pinset_signing_errors_total", "Failures to sign a document.", signingErrorsCounter.value.load(ordering: .relaxed))
        counter("pinset_storage_errors_total", "Database failures.", storageErrorsCounter.value.load(ordering: .relaxed))
        counter("pinset_resigned_documents_total", "Documents re-signed before expiry.", resignedCounter.value.load(ordering: .relaxed))
        out += "# HELP pinset_reports_total Pin failure reports received, by host.\n# TYPE pinset_reports_total counter\n"
        for (host, value) in reportsByHost.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out += "pinset_reports_total{host=\"\(host)\"} \(value)\n"
        }
        out += "# HELP pinset_hosts Hosts with a published document.\n# TYPE pinset_hosts gauge\npinset_hosts \(hosts)\n"
        return out
    }
}
