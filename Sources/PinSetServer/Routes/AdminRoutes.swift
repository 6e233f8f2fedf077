import Foundation
import Logging
import MicroHTTPD
import PinSetCore

/// The `/admin/` API (PROTOCOL §4): bearer authentication, then one service call per route.
struct AdminRoutes {
    let router: PinSetRouter
    let request: HTTPRequest

    func dispatch() -> (ServerMetrics.Route?, HTTPResponse) {
        let parts = Self.segments(of: request.path)
        let route = Self.route(of: parts)
        guard let tokenName = authenticate() else {
            return (route, Problem.unauthorized("send an admin token as `Authorization: Bearer <token>`; create one with `pinset token create`").response)
        }
        do {
            return (route, try answer(route, parts: parts, tokenName: tokenName))
        } catch {
            return (route, router.problemResponse(for: error, path: request.path))
        }
    }

    /// The path's segments after `/admin/`. A pin in `/hosts/{host}/pins/{sha256}` given in standard base64
    /// (the form every answer carries) may hold `/` once percent-decoded: its pieces are joined back.
    static func segments(of path: String) -> [Substring] {
        var parts = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2))
        if parts.count > 4, parts[0] == "hosts", parts[2] == "pins" {
            parts[3] = Substring(parts[3...].joined(separator: "/"))
            parts.removeSubrange(4...)
        }
        return parts
    }

    private static func route(of parts: [Substring]) -> ServerMetrics.Route {
        switch (parts.first, parts.count) {
        case ("hosts", 1): .adminHosts
        case ("hosts", 2): .adminHost
        case ("hosts", 3) where parts[2] == "pins": .adminPins
        case ("hosts", 4) where parts[2] == "pins": .adminPin
        case ("hosts", 3) where parts[2] == "history": .adminHistory
        case ("reports", 1): .adminReports
        case ("trust", 1): .adminTrust
        default: .unknown
        }
    }

    /// The token's name, or `nil` when the header is missing, malformed or names no active token.
    private func authenticate() -> String? {
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
        return router.service.authenticate(bearer: String(Substring(utf8)))
    }

    private func answer(_ route: ServerMetrics.Route, parts: [Substring], tokenName: String) throws -> HTTPResponse {
        let method = request.method
        let service = router.service
        let ifMatch = request.header("If-Match")
        switch route {
        case .adminHosts:
            guard method == .get else { throw Problem.methodNotAllowed(["GET"]) }
            return try json(200, ["hosts": service.hosts()])
        case .adminHost:
            let host = String(parts[1])
            switch method {
            case .get:
                return json(200, try service.detail(host: host))
            case .put:
                let body = try SetRequest.decode(json: request.body)
                let outcome = try service.replace(host: host, request: body, ifMatch: ifMatch, tokenName: tokenName)
                return written(outcome, outcome.created ? "create" : "replace", tokenName)
            case .delete:
                return written(try service.retire(host: host, ifMatch: ifMatch, tokenName: tokenName), "retire", tokenName)
            default:
                throw Problem.methodNotAllowed(["GET", "PUT", "DELETE"])
            }
        case .adminPins:
            guard method == .post else { throw Problem.methodNotAllowed(["POST"]) }
            let body = try PinsRequest.decode(json: request.body)
            return written(try service.addPins(host: String(parts[1]), request: body, ifMatch: ifMatch, tokenName: tokenName), "add", tokenName)
        case .adminPin:
            guard method == .delete else { throw Problem.methodNotAllowed(["DELETE"]) }
            return written(
                try service.removePin(host: String(parts[1]), sha256URL: String(parts[3]), ifMatch: ifMatch, tokenName: tokenName),
                "remove", tokenName)
        case .adminHistory:
            guard method == .get else { throw Problem.methodNotAllowed(["GET"]) }
            let host = try HostName.normalize(String(parts[1]))
            return try json(200, HistoryBody(host: host, versions: service.history(host: host)))
        case .adminReports:
            guard method == .get else { throw Problem.methodNotAllowed(["GET"]) }
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
                    groups: router.reports.groups(host: host, since: since),
                    days: router.reports.days(host: host, since: since)))
        case .adminTrust:
            guard method == .put else { throw Problem.methodNotAllowed(["PUT"]) }
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
        return json(outcome.created ? 201 : 200, outcome.detail)
    }

    private func json(_ status: Int, _ value: some Encodable) throws -> HTTPResponse {
        .dynamic(
            status: status, headers: [("Content-Type", "application/json")],
            body: [UInt8](try JSONCoding.encoder.encode(value)))
    }

    /// A host's detail with its ETag, written by ``HostDetail/encodedJSON()`` (the write path's answer).
    private func json(_ status: Int, _ detail: HostDetail) -> HTTPResponse {
        .dynamic(
            status: status, headers: [("Content-Type", "application/json"), ("ETag", detail.etag)],
            body: detail.encodedJSON())
    }
}
