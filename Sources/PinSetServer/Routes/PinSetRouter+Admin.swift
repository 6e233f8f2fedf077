import Foundation
import MicroHTTPD
import PinSetAdminAPI
import PinSetCore

/// The admin routes' handlers (PROTOCOL §4): the caller is authenticated and its right checked before any runs.
extension PinSetRouter {
    /// The largest page of `GET /admin/hosts`.
    static let maxPage = 1000

    /// `GET /admin/hosts`: every host, or one page of them, filtered to the token's hosts.
    func listHosts(_ context: RouteContext) throws -> HTTPResponse {
        let request = context.request
        var limit: Int?
        if let raw = request.query("limit") {
            guard let value = Int(raw), (1...Self.maxPage).contains(value) else {
                throw Problem.badRequest("limit must be a whole number from 1 to \(Self.maxPage)")
            }
            limit = value
        }
        let after = request.query("after")
        // openapi.yaml: a host name, at most 253 characters (schemathesis found a longer one answered 200).
        if let after, after.utf8.count > 253 {
            throw Problem.badRequest("after must be a host name of at most 253 bytes (the previous page's next)")
        }
        let scope = context.scope
        guard let limit, scope.hosts != nil else {
            let page = try service.hostsWithState(after: after, limit: limit)
            // A full page says where the next starts.
            return try json(
                200,
                HostsBody(
                    hosts: page.filter { scope.covers(host: $0.host) },
                    next: limit.flatMap { page.count == $0 ? page.last?.host : nil }))
        }
        // A scoped token pages through its own hosts only: `next` is always one of them (issue 40: it was the
        // last name of the unfiltered page, a host outside the scope). Bounded: each read moves past the last.
        var hosts: [HostSummary] = []
        var cursor = after
        while hosts.count < limit {
            let page = try service.hostsWithState(after: cursor, limit: Self.maxPage)
            hosts += page.filter { scope.covers(host: $0.host) }
            guard page.count == Self.maxPage, let last = page.last?.host else { break }
            cursor = last
        }
        hosts = Array(hosts.prefix(limit))
        return try json(200, HostsBody(hosts: hosts, next: hosts.count == limit ? hosts.last?.host : nil))
    }

    /// `GET /admin/hosts/{host}`.
    func hostDetail(_ context: RouteContext) throws -> HTTPResponse {
        let detail = try service.detail(host: context.host())
        return .dynamic(
            status: 200, headers: [("Content-Type", "application/json"), ("ETag", detail.etag)],
            body: detail.encodedJSON())
    }

    /// `PUT /admin/hosts/{host}`: the whole new set.
    func putHost(_ context: RouteContext) throws -> WriteCommand {
        let request = try SetRequest(json: context.request.body)
        // `includeSubdomains` makes the set govern every name below the host: the token must cover them too.
        if request.includeSubdomains, let caller = context.caller {
            let host = try context.host()
            if !caller.scope.covers(subdomainsOf: host) {
                throw Problem.forbidden(.host("*." + host), caller: caller)
            }
        }
        return try command(.replace(request), context)
    }

    /// `DELETE /admin/hosts/{host}`: retires the host.
    func retire(_ context: RouteContext) throws -> WriteCommand {
        try command(.retire, context)
    }

    /// `POST /admin/hosts/{host}/pins`: adds pins.
    func addPins(_ context: RouteContext) throws -> WriteCommand {
        try command(.add(PinsRequest(json: context.request.body)), context)
    }

    /// `DELETE /admin/hosts/{host}/pins/{sha256}`: removes one pin.
    func removePin(_ context: RouteContext) throws -> WriteCommand {
        _ = try context.host()  // a malformed host is the first thing wrong with the request
        let sha256 = try PinSetService.pinHash(path: String(context.parameters[1]))
        let force: Bool
        switch context.request.query("force") {
        case nil, "false": force = false
        case "true": force = true
        default: throw Problem.badRequest("the query parameter force is true or false")
        }
        return try command(.remove(sha256: sha256, force: force), context)
    }

    /// One write command on the path's host (normalised once, ``RouteContext/host()``) as the caller.
    private func command(_ change: WriteCommand.Change, _ context: RouteContext) throws -> WriteCommand {
        WriteCommand(
            host: try context.host(), change: change, ifMatch: context.request.header("If-Match"),
            tokenName: context.tokenName)
    }

    /// `GET /admin/hosts/{host}/history`.
    func history(_ context: RouteContext) throws -> HTTPResponse {
        let host = try context.host()
        return try json(200, HistoryBody(host: host, versions: service.history(host: host)))
    }

    /// `GET /admin/hosts/{host}/status`: the monitor's last result.
    func hostStatus(_ context: RouteContext) throws -> HTTPResponse {
        try json(200, service.status(host: context.host()))
    }

    /// `GET /admin/reports`: report groups and days, filtered to the token's hosts.
    func listReports(_ context: RouteContext) throws -> HTTPResponse {
        let host = try context.queryHost()
        var since: Date?
        if let raw = context.request.query("since") {
            guard let date = RFC3339.parse(raw) else {
                throw Problem.badRequest("since must be an RFC 3339 time such as 2026-11-21T00:00:00Z")
            }
            since = date
        }
        let scope = context.scope
        return try json(
            200,
            ReportsBody(
                groups: reports.groups(host: host, since: since).filter { scope.covers(host: $0.host) },
                days: reports.days(host: host, since: since).filter { scope.covers(host: $0.host) },
                logForks: reports.logForks(host: host, since: since).filter {
                    $0.host.map(scope.covers(host:)) ?? (scope.hosts == nil)
                }))
    }

    /// `PUT /admin/trust`: stores a trust document (PROTOCOL §6.3).
    func pushTrust(_ context: RouteContext) throws -> HTTPResponse {
        let outcome = try trust.push(context.request.body, tokenName: context.tokenName)
        metrics.adminWrite()
        logger.info(
            "trust document pushed",
            metadata: [
                "version": "\(outcome.version)", "signers": "\(outcome.signers.joined(separator: ","))",
                "token": "\(context.tokenName)",
            ])
        return try json(201, outcome)
    }

    private struct HostsBody: Encodable {
        let hosts: [HostSummary]
        /// The `after` of the next page; absent on the last page and without `limit`.
        let next: String?
    }

    private struct ReportsBody: Encodable {
        let groups: [ReportGroup]
        let days: [ReportDay]
        /// Transparency-log forks clients reported (a trust document's only for tokens over every host).
        let logForks: [LogForkReportEntry]
    }

    private struct HistoryBody: Encodable {
        let host: String
        let versions: [HistoryEntry]
    }

    /// A committed write's answer (`201` when it created the host, else `200`), counted and logged.
    func written(_ outcome: WriteOutcome, _ command: WriteCommand) throws -> HTTPResponse {
        metrics.adminWrite()
        let change =
            switch command.change {
            case .replace: outcome.created ? "create" : "replace"
            case .add: "add"
            case .remove: "remove"
            case .retire: "retire"
            }
        logger.info(
            "admin write",
            metadata: [
                "host": "\(outcome.detail.host)", "version": "\(outcome.detail.version)", "change": "\(change)",
                "token": "\(command.tokenName)",
            ])
        return .dynamic(
            status: outcome.created ? 201 : 200,
            headers: [("Content-Type", "application/json"), ("ETag", outcome.detail.etag)],
            body: try outcome.encodedJSON())
    }

    func json(_ status: Int, _ value: some Encodable) throws -> HTTPResponse {
        .dynamic(
            status: status, headers: [("Content-Type", "application/json")],
            body: [UInt8](try AdminJSON.encoder.encode(value)))
    }
}
