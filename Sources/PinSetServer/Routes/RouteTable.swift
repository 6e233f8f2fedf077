/// One HTTP route the server answers: a method and a path template with `{name}` placeholders.
struct Route: Sendable, Hashable {
    /// The HTTP method, upper case (`GET`, `HEAD`, `PUT`, ...).
    let method: String
    /// The path template, e.g. `/pins/{host}`.
    let path: String
}

/// Every route of the server. scripts/check_routes.py compares these lines with openapi.yaml:
/// keep one route per line, in exactly the form `Route(method: "GET", path: "/pins/{host}"),`.
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
        Route(method: "GET", path: "/admin/reports"),
        Route(method: "PUT", path: "/admin/trust"),
        Route(method: "GET", path: "/console"),
        Route(method: "GET", path: "/console/{asset}"),
    ]
}
