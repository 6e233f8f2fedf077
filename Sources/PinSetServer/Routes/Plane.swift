/// Which routes a listener serves (issue 40, two planes). With `--admin-port` the public listener serves what
/// clients and mirrors read and the admin listener what operators use; without it one listener serves both.
enum Plane: Sendable, Hashable {
    /// Every route: the server's one listener (no `--admin-port`).
    case both
    /// `/pins`, `/keys`, `/trust`, `/log`, `/reports`, `/healthz` (and the other public routes).
    case publicOnly
    /// `/admin`, `/console` and `/metrics`.
    case adminOnly

    /// Whether `template` (a ``RouteTable`` path template, or a request path that matches none) belongs to the
    /// admin plane.
    static func isAdmin(_ path: String) -> Bool {
        RouteTable.needsToken(path) || path == "/console" || path.hasPrefix("/console/") || path == "/metrics"
    }

    /// Whether a listener of this plane serves `path`.
    func serves(_ path: String) -> Bool {
        switch self {
        case .both: true
        case .publicOnly: !Self.isAdmin(path)
        case .adminOnly: Self.isAdmin(path)
        }
    }
}
