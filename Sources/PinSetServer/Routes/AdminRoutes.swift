import Foundation
import Logging
import MicroHTTPD
import PinSetAdminAPI
import PinSetCore

/// The `/admin/` API (PROTOCOL §4): bearer authentication, then one service call per route.
struct AdminRoutes {
    let router: PinSetRouter
    let request: HTTPRequest
    /// The ``RouteTable`` route the path matched; `nil` for a path under `/admin/` that is no route (`404` once
    /// authenticated).
    let match: RouteTable.Match?

    /// Authenticates, then checks the method against the route table (so a request without a token gets `401`
    /// whatever its method), then answers.
    func dispatch() -> HTTPResponse {
        guard let caller = authenticate() else {
            return Problem.unauthorized(
                "send an admin token as `Authorization: Bearer <token>`; create one with `pinset token create`"
            ).response
        }
        guard let match else {
            return Problem.notFound("there is no admin resource at \(request.path.prefix(200)); see openapi.yaml")
                .response
        }
        guard match.allows(request.method.name) else {
            return Problem.methodNotAllowed(RouteTable.methods[match.index]).response
        }
        let tokenName = caller.name
        do {
            try authorize(caller, match: match)
            return try answer(match, tokenName: tokenName, scope: caller.scope)
        } catch {
            return router.problemResponse(for: error, path: request.path)
        }
    }

    /// The token's name and scope, or `nil` when the header is missing, malformed or names no active token.
    private func authenticate() -> AdminCaller? {
        guard let header = request.header("Authorization") else { return nil }
        // `Bearer` in any case, a space, then the token with spaces and tabs around it ignored.
        var utf8 = Substring(header).utf8
        let scheme = "bearer".utf8
        guard utf8.count > scheme.count + 1,
            zip(utf8.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 }),
            utf8.dropFirst(scheme.count).first == 0x20
        else { return nil }
        utf8 = utf8.dropFirst(scheme.count + 1)
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        while let first = utf8.first, blank(first) { utf8 = utf8.dropFirst() }
        while let last = utf8.last, blank(last) { utf8 = utf8.dropLast() }
        guard !utf8.isEmpty, utf8.count <= 256 else { return nil }
        return router.service.caller(bearer: String(Substring(utf8)))
    }

    private func answer(_ match: RouteTable.Match, tokenName: String, scope: TokenScope = .full) throws -> HTTPResponse
    {
        let method = request.method
        let service = router.service
        let ifMatch = request.header("If-Match")
        let parameters = match.parameters
        switch (match.template, method) {
        case ("/admin/hosts", _):
            var limit: Int?
            if let raw = request.query("limit") {
                guard let value = Int(raw), (1...Self.maxPage).contains(value) else {
                    throw Problem.badRequest("limit must be a whole number from 1 to \(Self.maxPage)")
                }
                limit = value
            }
            let after = request.query("after")
            let page = try service.hostsWithState(after: after, limit: limit)
            // A full page says where the next starts (a scoped token may see fewer than `limit` of it).
            return try json(
                200,
                HostsBody(
                    hosts: page.filter { scope.covers(host: $0.host) },
                    next: limit.flatMap { page.count == $0 ? page.last?.host : nil }))
        case ("/admin/hosts/{host}", .get):
            return json(200, try service.detail(host: String(parameters[0])))
        case ("/admin/hosts/{host}", .put):
            let body = try SetRequest.decode(json: request.body)
            let outcome = try service.replace(
                host: String(parameters[0]), request: body, ifMatch: ifMatch, tokenName: tokenName)
            return written(outcome, outcome.created ? "create" : "replace", tokenName)
        case ("/admin/hosts/{host}", _):
            return written(
                try service.retire(host: String(parameters[0]), ifMatch: ifMatch, tokenName: tokenName), "retire",
                tokenName)
        case ("/admin/hosts/{host}/pins", _):
            let body = try PinsRequest.decode(json: request.body)
            return written(
                try service.addPins(host: String(parameters[0]), request: body, ifMatch: ifMatch, tokenName: tokenName),
                "add", tokenName)
        case ("/admin/hosts/{host}/pins/{sha256}", _):
            return written(
                try service.removePin(
                    host: String(parameters[0]), sha256URL: String(parameters[1]), ifMatch: ifMatch,
                    tokenName: tokenName, force: request.query("force") == "true"),
                "remove", tokenName)
        case ("/admin/hosts/{host}/history", _):
            let host = try HostName.normalize(String(parameters[0]))
            return try json(200, HistoryBody(host: host, versions: service.history(host: host)))
        case ("/admin/hosts/{host}/status", _):
            return try json(200, service.status(host: String(parameters[0])))
        case ("/admin/reports", _):
            var host: String?
            if let raw = request.query("host") { host = try HostName.normalize(raw) }
            var since: Date?
            if let raw = request.query("since") {
                guard let date = RFC3339.parse(raw) else {
                    throw Problem.badRequest("since must be an RFC 3339 time such as 2026-11-21T00:00:00Z")
                }
                since = date
            }
            return try json(
                200,
                ReportsBody(
                    groups: router.reports.groups(host: host, since: since).filter { scope.covers(host: $0.host) },
                    days: router.reports.days(host: host, since: since).filter { scope.covers(host: $0.host) }))
        case ("/admin/trust", _):
            let outcome = try router.trust.push(request.body, tokenName: tokenName)
            router.metrics.adminWrite()
            router.logger.info(
                "trust document pushed",
                metadata: [
                    "version": "\(outcome.version)", "signers": "\(outcome.signers.joined(separator: ","))",
                    "token": "\(tokenName)",
                ])
            return try json(201, outcome)
        default:
            throw Problem.notFound("there is no admin resource at \(request.path.prefix(200)); see openapi.yaml")
        }
    }

    /// The largest page of `GET /admin/hosts`.
    static let maxPage = 1000

    private struct HostsBody: Encodable {
        let hosts: [HostSummary]
        /// The `after` of the next page; absent on the last page and without `limit`.
        let next: String?
    }

    private struct ReportsBody: Encodable {
        let groups: [ReportGroup]
        let days: [ReportDay]
    }

    private struct HistoryBody: Encodable {
        let host: String
        let versions: [HistoryEntry]
    }

    private func written(_ outcome: WriteOutcome, _ change: String, _ tokenName: String) -> HTTPResponse {
        router.metrics.adminWrite()
        router.logger.info(
            "admin write",
            metadata: [
                "host": "\(outcome.detail.host)", "version": "\(outcome.detail.version)", "change": "\(change)",
                "token": "\(tokenName)",
            ])
        guard let preflight = outcome.preflight else { return json(outcome.created ? 201 : 200, outcome.detail) }
        return json(outcome.created ? 201 : 200, outcome.detail, preflight: preflight)
    }

    private func json(_ status: Int, _ value: some Encodable) throws -> HTTPResponse {
        .dynamic(
            status: status, headers: [("Content-Type", "application/json")],
            body: [UInt8](try AdminJSON.encoder.encode(value)))
    }

    /// A host's detail with its ETag, written by ``HostDetail/encodedJSON()`` (the write path's answer).
    private func json(_ status: Int, _ detail: HostDetail) -> HTTPResponse {
        .dynamic(
            status: status, headers: [("Content-Type", "application/json"), ("ETag", detail.etag)],
            body: detail.encodedJSON())
    }

    /// A host's detail with its ETag and the write's pre-flight report as a `preflight` member.
    private func json(_ status: Int, _ detail: HostDetail, preflight: PreflightReport) -> HTTPResponse {
        var body = detail.encodedJSON()
        guard body.last == UInt8(ascii: "}"), let report = try? AdminJSON.encoder.encode(preflight) else {
            return json(status, detail)
        }
        body.removeLast()
        body += Array(",\"preflight\":".utf8) + [UInt8](report) + [UInt8(ascii: "}")]
        return .dynamic(
            status: status, headers: [("Content-Type", "application/json"), ("ETag", detail.etag)], body: body)
    }
}
