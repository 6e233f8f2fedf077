/// Every route of the server, and the one place requests are matched to them: dispatch, authentication, the
/// rights check, the `405` answers' `Allow` and the metrics' `route` labels all come from this list.
/// scripts/check_routes.py compares these lines with openapi.yaml: keep one route per line, starting
/// `Route(method: "GET", path: "/pins/{host}", `.
enum RouteTable {
    /// All routes, public first.
    static let all: [Route] = [
        Route(method: "GET", path: "/pins/{host}", .anyone) { try $0.servePins($1) },
        Route(method: "HEAD", path: "/pins/{host}", .anyone) { try $0.servePins($1) },
        Route(method: "GET", path: "/keys", .anyone) { $0.serveKeys($1) },
        Route(method: "GET", path: "/healthz", .anyone) { try $0.health($1) },
        Route(method: "GET", path: "/readyz", .anyone) { try $0.ready($1) },
        Route(method: "GET", path: "/metrics", .anyone) { try $0.serveMetrics($1) },
        Route(method: "POST", path: "/reports", .anyone) { try $0.receiveReport($1) },
        Route(method: "GET", path: "/trust", .anyone) { try $0.serveTrust($1) },
        Route(method: "GET", path: "/trust/{version}", .anyone) { try $0.serveTrust($1) },
        Route(method: "GET", path: "/pins/{host}/proof", .anyone) { try $0.servePinsProof($1) },
        Route(method: "GET", path: "/trust/{version}/proof", .anyone) { try $0.serveTrustProof($1) },
        Route(method: "GET", path: "/log/checkpoint", .anyone) { try $0.serveLogFile($1) },
        Route(method: "GET", path: "/log/tile/{tile}", .anyone) { try $0.serveLogFile($1) },
        Route(method: "GET", path: "/admin/hosts", .reader) { try $0.listHosts($1) },
        Route(method: "GET", path: "/admin/hosts/{host}", .readerOfHost) { try $0.hostDetail($1) },
        Route(method: "PUT", path: "/admin/hosts/{host}", .writerOfHost, .mayWait) { try $0.putHost($1) },
        Route(method: "DELETE", path: "/admin/hosts/{host}", .writerOfHost, .mayWait) { try $0.retire($1) },
        Route(method: "POST", path: "/admin/hosts/{host}/pins", .writerOfHost, .mayWait) { try $0.addPins($1) },
        Route(method: "DELETE", path: "/admin/hosts/{host}/pins/{sha256}", .writerOfHost, .mayWait) {
            try $0.removePin($1)
        },
        Route(method: "GET", path: "/admin/hosts/{host}/history", .readerOfHost) { try $0.history($1) },
        Route(method: "GET", path: "/admin/hosts/{host}/status", .readerOfHost) { try $0.hostStatus($1) },
        Route(method: "GET", path: "/admin/reports", .readerOfQueryHost) { try $0.listReports($1) },
        Route(method: "PUT", path: "/admin/trust", .admin, .alwaysWaits) { try $0.pushTrust($1) },
        Route(method: "GET", path: "/admin/log", .admin) { try $0.adminLog($1) },
        Route(method: "POST", path: "/admin/log/forks/{id}/acknowledge", .admin) { try $0.acknowledgeFork($1) },
        Route(method: "GET", path: "/console", .anyone, counted: false) { try $0.serveConsole($1) },
        Route(method: "GET", path: "/console/{asset}", .anyone, counted: false) { try $0.serveConsole($1) },
    ]

    /// Where every path needs a token, even one that is no route (so nothing there is discoverable without one).
    static let tokenPrefix = "/admin"

    /// Whether `path` is under ``tokenPrefix``.
    static func needsToken(_ path: String) -> Bool {
        path == tokenPrefix || path.hasPrefix(tokenPrefix + "/")
    }

    /// The distinct path templates, in table order. A template's index is its metrics label's index.
    static let templates: [String] = {
        var seen: Set<String> = []
        return all.map(\.path).filter { seen.insert($0).inserted }
    }()

    /// The metrics label of requests that match no template.
    static let otherLabel = "other"
    /// The label index of requests that match no template (one past the templates).
    static let other = templates.count
    /// The label index of `/pins/{host}`, which the read path counts without matching.
    static let pins = templates.firstIndex(of: "/pins/{host}")!
    /// The label index of `/pins/{host}/proof`, which the read path counts without matching.
    static let pinsProof = templates.firstIndex(of: "/pins/{host}/proof")!

    /// The routes of each template, by template index.
    static let routes: [[Route]] = templates.map { template in all.filter { $0.path == template } }

    /// The methods each template answers, by template index: the `Allow` of its `405`.
    static let methods: [[String]] = routes.map { $0.map(\.method) }

    /// Whether the template takes `{host}` first (normalised once per request, ``RouteContext/host()``).
    static let hostFirst: [Bool] = segments.map { $0.first { $0.first == "{" } == "{host}" }

    /// A placeholder that may hold `/` (it takes the rest of the path): a pin in standard base64, the form every
    /// answer carries, holds `/` once percent-decoded; a C2SP tlog-tiles path below `/log/tile/`.
    private static let restPlaceholders: Set<Substring> = ["{sha256}", "{tile}"]

    static let segments: [[Substring]] = templates.map { $0.split(separator: "/") }

    /// A request path matched to a template.
    struct Match {
        /// The template's index in ``templates``.
        let index: Int
        /// The values of the template's placeholders, in order.
        let parameters: [Substring]

        /// The template, e.g. `/admin/hosts/{host}`.
        var template: String { RouteTable.templates[index] }

        /// The route of `method` for this template, `nil` when the table lists none (`405`).
        func route(_ method: String) -> Route? { RouteTable.routes[index].first { $0.method == method } }

        /// Whether any route of the template needs a token: then the request is authenticated before its method
        /// is checked (`401` whatever the method).
        var needsToken: Bool { RouteTable.routes[index].contains { $0.access.needsToken } }
    }

    /// The template `path` matches, with its placeholders' values; `nil` when none does. A placeholder matches
    /// one segment, even an empty one (a ``restPlaceholders`` one at the end: the rest of the path).
    static func match(_ path: String) -> Match? {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        // Split on the byte '/', not on Characters: a combining mark or emoji modifier right after a '/' joins it
        // into one grapheme, and a Character split would not see that '/' (e.g. /admin/hosts/\u{1F3FB}).
        let given = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
            .map { Substring($0) }
        for (index, template) in segments.enumerated() {
            if let parameters = bind(template, to: given) { return Match(index: index, parameters: parameters) }
        }
        return nil
    }

    private static func bind(_ template: [Substring], to given: [Substring]) -> [Substring]? {
        guard
            given.count == template.count
                || (given.count > template.count && template.last.map(restPlaceholders.contains) == true)
        else { return nil }
        var parameters: [Substring] = []
        for (position, segment) in template.enumerated() {
            if segment.first == "{" {
                let value =
                    position == template.count - 1 && given.count > template.count
                    ? Substring(given[position...].joined(separator: "/")) : given[position]
                parameters.append(value)  // may be empty: the route refuses it with a clear 400
            } else if given[position] != segment {
                return nil
            }
        }
        return parameters
    }
}
