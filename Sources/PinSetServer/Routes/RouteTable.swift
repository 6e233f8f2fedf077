/// One HTTP route the server answers: a method and a path template with `{name}` placeholders.
struct Route: Sendable, Hashable {
    /// The HTTP method, upper case (`GET`, `HEAD`, `PUT`, ...).
    let method: String
    /// The path template, e.g. `/pins/{host}`.
    let path: String
}

/// Every route of the server, and the one place requests are matched to them: dispatch, the `405` answers'
/// `Allow` and the metrics' `route` labels all come from this list. scripts/check_routes.py compares these lines
/// with openapi.yaml: keep one route per line, in exactly the form `Route(method: "GET", path: "/pins/{host}"),`.
enum RouteTable {
    /// All routes, public first.
    static let all: [Route] = [
        Route(method: "GET", path: "/pins/{host}"),
        Route(method: "HEAD", path: "/pins/{host}"),
        Route(method: "GET", path: "/keys"),
        Route(method: "GET", path: "/healthz"),
        Route(method: "GET", path: "/metrics"),
        Route(method: "POST", path: "/reports"),
        Route(method: "GET", path: "/trust"),
        Route(method: "GET", path: "/trust/{version}"),
        Route(method: "GET", path: "/admin/hosts"),
        Route(method: "GET", path: "/admin/hosts/{host}"),
        Route(method: "PUT", path: "/admin/hosts/{host}"),
        Route(method: "DELETE", path: "/admin/hosts/{host}"),
        Route(method: "POST", path: "/admin/hosts/{host}/pins"),
        Route(method: "DELETE", path: "/admin/hosts/{host}/pins/{sha256}"),
        Route(method: "GET", path: "/admin/hosts/{host}/history"),
        Route(method: "GET", path: "/admin/hosts/{host}/status"),
        Route(method: "GET", path: "/admin/reports"),
        Route(method: "PUT", path: "/admin/trust"),
        Route(method: "GET", path: "/console"),
        Route(method: "GET", path: "/console/{asset}"),
    ]

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

    /// The methods each template answers, by template index: the `Allow` of its `405`.
    static let methods: [[String]] = templates.map { template in all.filter { $0.path == template }.map(\.method) }

    /// A placeholder that may hold `/` (it takes the rest of the path): a pin in standard base64, the form every
    /// answer carries, holds `/` once percent-decoded.
    private static let restPlaceholders: Set<Substring> = ["{sha256}"]

    private static let segments: [[Substring]] = templates.map { $0.split(separator: "/") }

    /// A request path matched to a template.
    struct Match {
        /// The template's index in ``templates``.
        let index: Int
        /// The values of the template's placeholders, in order.
        let parameters: [Substring]

        /// The template, e.g. `/admin/hosts/{host}`.
        var template: String { RouteTable.templates[index] }

        /// Whether the table lists `method` for this template.
        func allows(_ method: String) -> Bool { RouteTable.methods[index].contains(method) }
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
