import Foundation
import Logging
import MicroHTTPD
import PinSetAdminAPI
import PinSetCore
import PinSetLogServer
import PinSetStorage
import ReadCache

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
    let reportLimiter: ReportRateLimiter
    /// Caps the reports on the deferred pool (``ReportConfiguration/maxChecking``).
    let reportAdmission: ReportAdmission
    /// Whose budget a report spends (``ReportClientAddress``).
    let reportSender: ReportClientAddress
    let keys: CachedResource
    let console = ConsoleSite()
    /// Refused admin requests, logged rate-limited (issue 40).
    let failedLogins: FailedLoginLog
    /// The transparency log's publisher, `nil` without `--log-key`.
    let log: LogPublisher?
    let witnesses: WitnessWorker?
    /// What `GET /readyz` checks.
    let readiness: Readiness
    /// The routes this listener serves; the others are `404`, as if they did not exist.
    let plane: Plane
    /// Whether the read path's fast answers (`GET /pins/…`, proofs) are this listener's.
    private let servesReads: Bool

    init(
        snapshot: DocumentIndex, service: PinSetService, reports: PinReportService, trust: TrustService,
        store: PinDatabase, metrics: ServerMetrics, logger: Logger, log: LogPublisher? = nil,
        witnesses: WitnessWorker? = nil, readiness: Readiness = Readiness(), plane: Plane = .both
    ) {
        self.readiness = readiness
        self.plane = plane
        servesReads = plane != .adminOnly
        self.log = log
        self.witnesses = witnesses
        self.trust = trust
        self.snapshot = snapshot
        self.service = service
        self.reports = reports
        self.reportLimiter = ReportRateLimiter(perMinute: reports.configuration.perAddressPerMinute)
        reportAdmission = ReportAdmission(limit: reports.configuration.maxChecking)
        reportSender = ReportClientAddress(trustedProxies: reports.configuration.trustedProxies)
        self.store = store
        self.metrics = metrics
        self.logger = logger
        failedLogins = FailedLoginLog(logger: logger)
        let body = (try? AdminJSON.encoder.encode(service.keySet())).map { [UInt8]($0) } ?? []
        keys = CachedResource(
            key: "/keys".utf8, etag: PublishedDocument.etag(for: body), body: body, version: 0,
            contentType: "application/json", cacheControl: "public, max-age=300")
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let method = request.method
        if servesReads, method == .get || method == .head,
            let document = snapshot.response(forPathAfter: "/pins/", of: request)
        {
            metrics.count(RouteTable.pins, status: document.status)
            return .prepared(document)
        }
        if servesReads, method == .get, let proof = log?.proofs.fastAnswer(request) {
            metrics.count(RouteTable.pinsProof, status: proof.status)
            return .prepared(proof)
        }
        let path = request.path
        guard plane.serves(path) else {
            // Another listener's route: not found here, before any token check (nothing to learn on this plane).
            metrics.count(RouteTable.other, status: 404)
            return problemResponse(
                for: Problem.notFound(
                    "there is no resource at \(path.prefix(200)) on this listener; "
                        + (plane == .publicOnly
                            ? "the admin API, console and metrics are on the admin listener (--admin-port)"
                            : "pin sets, keys, trust documents, the log and reports are on the package listener")),
                path: path)
        }
        let match = RouteTable.match(path)
        let route = match?.route(method.name)
        let label = (route?.counted ?? true) ? match?.index ?? RouteTable.other : nil
        let response: HTTPResponse
        do {
            response = try dispatch(request, path: path, match: match, route: route, label: label)
        } catch {
            response = problemResponse(for: error, path: path)
        }
        return counted(response, label)
    }

    /// `response`, counted under the metrics label `label` (`nil`: not counted). A deferred answer is counted when
    /// its work ends.
    private func counted(_ response: HTTPResponse, _ label: Int?) -> HTTPResponse {
        guard let label else { return response }
        switch response {
        case .prepared(let prepared): metrics.count(label, status: prepared.status)
        case .dynamic(let status, _, _): metrics.count(label, status: status)
        case .deferred: break
        }
        return response
    }

    /// The route's answer, in the table's order of checks: a token where one is needed (`401`, whatever the
    /// method, even for a path that is no route), then `404`, `405`, the rights check (`403`), the handler. A
    /// route that may wait (``Route/Action``) is answered off the worker thread when it does: the deferred work
    /// calls the matched handler, or runs the write's command, directly.
    private func dispatch(
        _ request: HTTPRequest, path: String, match: RouteTable.Match?, route: Route?, label: Int?
    ) throws -> HTTPResponse {
        var caller: AdminCaller?
        if match?.needsToken ?? RouteTable.needsToken(path) {
            guard let found = authenticate(request) else {
                failedLogins.record(
                    address: request.remoteAddress, method: request.method.name, path: path,
                    reason: request.header("Authorization") == nil
                        ? "no Authorization header" : "no active token matches")
                throw Problem.unauthorized(
                    "send an admin token as `Authorization: Bearer <token>`; create one with `pinset token create`")
            }
            caller = found
        }
        guard let match else {
            throw Problem.notFound(
                "there is no \(caller == nil ? "" : "admin ")resource at \(path.prefix(200)); see openapi.yaml")
        }
        guard let route else { throw Problem.methodNotAllowed(RouteTable.methods[match.index]) }
        let context = RouteContext(
            request: request, parameters: match.parameters, caller: caller,
            hostParameter: RouteTable.hostFirst[match.index])
        if let caller, let right = route.access.right(context) {
            try authorize(caller, right, request)
        }
        switch route.action {
        case .answer(let handler):
            // A handler may answer `.deferred` once it has checked the request (`POST /reports` stores off the
            // worker thread): its answer is counted, and its error answered, when the work ends.
            let response = try handler(self, context)
            guard case .deferred(let work) = response else { return response }
            return .deferred { [self] detached in counted(answer(path) { work(detached) }, label) }
        case .write(let makeCommand):
            let command = try makeCommand(self, context)
            guard service.waits(command) else { return try written(service.execute(command), command) }
            // The write waits for a probe of its host (up to the probe's deadline) or for the log's next
            // checkpoint: off the worker thread, so that the GETs on its connections are never queued behind it,
            // and so that concurrent writes wait together and share one checkpoint (group commit).
            return .deferred { [self] _ in
                counted(answer(path) { () throws in try written(service.execute(command), command) }, label)
            }
        case .deferred(let handler):
            // A trust push: it waits for the log's checkpoint and, with a next key, re-signs every host. The
            // handler sees the context over the detached copy, never the live request (gone once this returns).
            return .deferred { [self] detached in
                counted(answer(path) { () throws in try handler(self, context.over(detached)) }, label)
            }
        }
    }

    /// `work`'s answer, or the problem it threw (deferred work: the router's catch is behind it).
    private func answer(_ path: String, _ work: () throws -> HTTPResponse) -> HTTPResponse {
        do {
            return try work()
        } catch {
            return problemResponse(for: error, path: path)
        }
    }

    /// The token's name and scope, or `nil` when the header is missing, malformed or names no active token.
    func authenticate(_ request: HTTPRequest) -> AdminCaller? {
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
        return service.caller(bearer: String(Substring(utf8)))
    }

    /// Throws a `403` ``Problem`` when `caller`'s scope lacks `right`.
    private func authorize(_ caller: AdminCaller, _ right: AdminRight, _ request: HTTPRequest) throws {
        guard let missing = caller.scope.missing(right) else { return }
        let problem = Problem.forbidden(missing, caller: caller)
        logger.notice(
            "admin request forbidden",
            metadata: [
                "token": "\(caller.name)", "method": "\(request.method)", "path": "\(request.path.prefix(200))",
                "missing": "\(problem.missingRight ?? "")",
            ])
        throw problem
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

    func overloadedResponse() -> PreparedResponse {
        var problem = Problem.unavailable(
            "too many requests are waiting for the server (writes, reports); retry after 1 second")
        problem.headers = [("Retry-After", "1")]
        return problem.prepared
    }

    func badPathResponse() -> PreparedResponse {
        Problem.badRequest(
            "the path holds a control character once percent-decoded (such as %00 or %0A); no resource has one"
        ).prepared
    }
}
