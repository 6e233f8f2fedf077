import Foundation
import Logging
import MicroHTTPD
import PinSetAdminAPI
import PinSetCore

/// Sends each request to the right place: `GET /pins/{host}` to the in-memory snapshot, the other public
/// routes to small handlers, and `/admin/` to the service after checking the bearer token.
final class PinSetRouter: HTTPHandler {
    let snapshot: DocumentIndex
    let service: PinSetService
    let store: PinDatabase
    let metrics: ServerMetrics
    let logger: Logger
    let reports: PinReportService
    let trust: TrustService
    private let reportLimiter: ReportRateLimiter
    private let keys: CachedResource
    private let console = ConsoleSite()

    init(
        snapshot: DocumentIndex, service: PinSetService, reports: PinReportService, trust: TrustService,
        store: PinDatabase, metrics: ServerMetrics, logger: Logger
    ) {
        self.trust = trust
        self.snapshot = snapshot
        self.service = service
        self.reports = reports
        self.reportLimiter = ReportRateLimiter(perMinute: reports.configuration.perAddressPerMinute)
        self.store = store
        self.metrics = metrics
        self.logger = logger
        let body = (try? AdminJSON.encoder.encode(service.keySet())).map { [UInt8]($0) } ?? []
        keys = CachedResource(
            key: "/keys".utf8, etag: PublishedDocument.etag(for: body), body: body, version: 0,
            contentType: "application/json", cacheControl: "public, max-age=300")
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let method = request.method
        if method == .get || method == .head, let document = snapshot.resource(forPathAfter: "/pins/", of: request) {
            return answer(document, request)
        }
        if mayProbe(request) {
            // The write waits for a probe of its host (up to the probe's deadline): off the worker thread, so that
            // the GETs on its connections are never queued behind it.
            return .deferred { [self] detached in handle(detached) }
        }
        let (route, response) = route(request)
        if let route {
            switch response {
            case .prepared(let prepared): metrics.count(route, status: prepared.status)
            case .dynamic(let status, _, _): metrics.count(route, status: status)
            case .deferred: break
            }
        }
        return response
    }

    /// Whether `request` is an admin write that may probe its host (the pre-flight check is on, or a pin asks for
    /// `capture`) and has not been deferred yet.
    private func mayProbe(_ request: HTTPRequest) -> Bool {
        let method = request.method
        guard method == .put || method == .post || method == .delete, !request.isDetached,
            request.withPathBytes({ $0.starts(with: "/admin/hosts/".utf8) })
        else { return false }
        return service.configuration.probes.preflight != .off || request.body.firstRange(of: #""capture""#.utf8) != nil
    }

    // MARK: Public read path

    /// The pre-built `200` or `304` of a host's document, counted. The fast path: a host already in normal form
    /// costs one hash-table lookup (``DocumentIndex/resource(forPathAfter:of:)``) and this.
    @inline(__always)
    private func answer(_ document: CachedResource, _ request: HTTPRequest) -> HTTPResponse {
        let response = document.response(to: request)
        metrics.count(RouteTable.pins, status: response.status)
        return .prepared(response)
    }

    /// `GET /pins/{host}` for a host not in normal form or not served: normalise, then 400 or 404.
    private func servePins(host raw: String, _ request: HTTPRequest) -> HTTPResponse {
        let host: String
        do {
            host = try HostName.normalize(raw)
        } catch {
            return Problem.invalidHost("\"\(raw.prefix(100))\" is not a valid host name: \(error.description)").response
        }
        guard let document = snapshot.resource(host) else {
            return Problem.notFound("no pin set is published for \(host)").response
        }
        return answer(document, request)
    }

    // MARK: General routing

    /// Answers a request off the fast path, with the route label to count it under (`nil`: already counted or
    /// not counted). ``RouteTable`` matches the path and says which methods it takes; this only says what each
    /// route does.
    private func route(_ request: HTTPRequest) -> (Int?, HTTPResponse) {
        let path = request.path
        let match = RouteTable.match(path)
        // Everything under /admin needs a token first, even a path that is no route (so nothing there is
        // discoverable without one).
        if path == "/admin" || path.hasPrefix("/admin/") {
            return (
                match?.index ?? RouteTable.other, AdminRoutes(router: self, request: request, match: match).dispatch()
            )
        }
        guard let match else {
            return (
                RouteTable.other,
                Problem.notFound("there is no resource at \(path.prefix(200)); see openapi.yaml").response
            )
        }
        guard match.allows(request.method.name) else {
            return (match.index, Problem.methodNotAllowed(RouteTable.methods[match.index]).response)
        }
        switch match.template {
        case "/pins/{host}":
            let response = servePins(host: String(match.parameters[0]), request)
            // servePins counted 200/304 itself through answer(); count the errors here.
            if case .dynamic = response { return (match.index, response) }
            return (nil, response)
        case "/keys":
            return (match.index, .prepared(keys.response(to: request)))
        case "/healthz":
            return (match.index, health())
        case "/metrics":
            let body = Array(
                (metrics.render(hosts: snapshot.count, delegation: try? trust.delegation())
                    + HostProbeMetrics.render(store)).utf8)
            return (
                match.index, .dynamic(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: body)
            )
        case "/reports":
            return (match.index, receiveReport(request))
        case "/trust":
            return (match.index, serveTrust(version: nil, request))
        case "/trust/{version}":
            let text = match.parameters[0]
            guard let version = Int(text), version >= 1, text.utf8.count <= 18, text.first != "0", text.first != "+"
            else {
                return (
                    match.index, Problem.badRequest("the trust document version must be a whole number ≥ 1").response
                )
            }
            return (match.index, serveTrust(version: version, request))
        case "/console", "/console/{asset}":
            return (nil, console.respond(to: request, path: path))  // static files: not counted in /metrics
        default:
            return (match.index, Problem.internalError.response)
        }
    }

    /// `POST /reports`: rate-limited per source address, then stored (or counted, when a duplicate).
    private func receiveReport(_ request: HTTPRequest) -> HTTPResponse {
        if let wait = reportLimiter.take(request.remoteAddress ?? "unknown") {
            var problem = Problem(
                slug: "rate-limited", title: "Too many reports", status: 429,
                detail: "this address sent too many reports; retry after \(wait) seconds")
            problem.headers = [("Retry-After", String(wait))]
            return problem.response
        }
        do {
            let stored = try reports.submit(json: request.body)
            metrics.report(host: snapshot.resource(stored.host) != nil ? stored.host : nil)
            return .dynamic(status: 204, headers: [], body: [])
        } catch {
            return problemResponse(for: error, path: "/reports")
        }
    }

    /// `GET /trust` (`version == nil`) and `GET /trust/{version}`: a pre-built answer, or 304, or 404.
    private func serveTrust(version: Int?, _ request: HTTPRequest) -> HTTPResponse {
        guard let document = trust.index.resource(version: version) else {
            if let version { return Problem.notFound("there is no trust document version \(version)").response }
            return Problem.notFound("this server publishes no trust document (PROTOCOL §6)").response
        }
        return .prepared(document.response(to: request))
    }

    /// The one place an error becomes an answer: an ``HTTPProblemError`` gives its problem; a storage failure
    /// (already logged where it happened) is counted; anything else is logged and answered with a generic 500.
    func problemResponse(for error: any Error, path: String) -> HTTPResponse {
        guard let error = error as? any HTTPProblemError else {
            logger.error("request failed", metadata: ["path": "\(path)", "error": "\(error)"])
            return Problem.internalError.response
        }
        if let error = error as? ServiceError, error.code == .storage {
            metrics.storageError()
            logger.error("storage failure", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        return error.problem.response
    }

    // MARK: Answers the wrapper sends on its own

    func payloadTooLargeResponse(limit: Int) -> PreparedResponse {
        Problem(
            slug: "payload-too-large", title: "Payload too large", status: 413,
            detail: "the request body is larger than \(limit) bytes; send a smaller body"
        ).prepared
    }

    func internalErrorResponse() -> PreparedResponse { Problem.internalError.prepared }

    private func health() -> HTTPResponse {
        guard store.isHealthy() else {
            return Problem.unavailable("the database does not answer").response
        }
        return .dynamic(
            status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"status":"ok"}"#.utf8))
    }
}
