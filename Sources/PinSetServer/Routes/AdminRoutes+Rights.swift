import MicroHTTPD
import PinSetCore

/// Authorization of admin requests: every route's right is declared here, and checked in one place
/// (``AdminRoutes/authorize(_:match:)``, called by `dispatch()` after the `401`/`404`/`405` checks, before the route runs).
///
/// A new admin route declares its right by adding its template to ``requiredRight(_:)``; a route that does not is
/// `admin`-only. A token that lacks the right gets `403` naming the missing right, before the route looks anything
/// up, so a token never learns whether a host outside its scope exists (never a `404` for those).
extension AdminRoutes {
    /// The right the route `match` needs for this request's method. A malformed host is left to the route, which
    /// answers `400` for it.
    func requiredRight(_ match: RouteTable.Match) -> AdminRight {
        let writes = request.method == .put || request.method == .post || request.method == .delete
        let host = match.parameters.first.flatMap { try? HostName.normalize($0) }
        switch match.template {
        case "/admin/hosts":
            // Filtered to the token's hosts by the route.
            return .requires(.reader)
        case "/admin/hosts/{host}", "/admin/hosts/{host}/pins", "/admin/hosts/{host}/pins/{sha256}":
            return .requires(writes ? .writer : .reader, host: host)
        case "/admin/hosts/{host}/history", "/admin/hosts/{host}/status":
            return .requires(.reader, host: host)
        case "/admin/reports":
            // Reports of the token's hosts (the route filters the rest out); `?host=` outside them is refused.
            guard let raw = request.query("host") else { return .requires(.reader) }
            return .requires(.reader, host: try? HostName.normalize(raw))
        default:
            // Trust documents, tokens and every route that declares nothing: admin only.
            return .admin
        }
    }

    /// Throws a `403` ``Problem`` when `caller`'s scope lacks the right the request needs.
    func authorize(_ caller: AdminCaller, match: RouteTable.Match) throws {
        guard let missing = caller.scope.missing(requiredRight(match)) else { return }
        let problem = Problem.forbidden(missing, caller: caller)
        router.logger.notice(
            "admin request forbidden",
            metadata: [
                "token": "\(caller.name)", "method": "\(request.method)", "path": "\(request.path.prefix(200))",
                "missing": "\(problem.missingRight ?? "")",
            ])
        throw problem
    }
}

extension Problem {
    /// `403`: the token is valid but lacks `missing`. The detail names the token, the right it lacks and what it
    /// holds; nothing about whether the host exists.
    static func forbidden(_ missing: AdminRight.Missing, caller: AdminCaller) -> Problem {
        let detail: String
        let right: String
        switch missing {
        case .role(let role):
            right = role.rawValue
            let what =
                switch role {
                case .reader: "read pin sets"
                case .writer: "change pin sets"
                case .admin: "use this server-wide resource"
                }
            detail =
                "the token \"\(caller.name)\" has the \(caller.scope.role.rawValue) role; to \(what) it needs the \(role.rawValue) role"
        case .host(let host):
            right = "host"
            detail =
                "the token \"\(caller.name)\" may not act on \(host): its hosts are \(caller.scope.hostsDescription)"
        }
        return Problem(slug: "forbidden", title: "Forbidden", status: 403, detail: detail, missingRight: right)
    }
}
