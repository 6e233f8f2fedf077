import Foundation
import Logging
import MicroHTTPD
import PinSetCore

/// Sends each request to the right place: `GET /pins/{host}` to the in-memory snapshot, the other public
/// routes to small handlers, and `/admin/` to the service after checking the bearer token.
final class PinSetRouter: HTTPHandler {
    let snapshot: DocumentSnapshot
    let service: PinSetService
    let store: PinStore
    let metrics: ServerMetrics
    let logger: Logger
    let reports: PinReportService
    private let reportLimiter: ReportRateLimiter
    private let keys: PreparedResponse
    private let keysNotModified: PreparedResponse
    private let keysETag: [UInt8]
    private let console = ConsoleSite()

    init(
        snapshot: DocumentSnapshot, service: PinSetService, reports: PinReportService, store: PinStore,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.snapshot = snapshot
        self.service = service
        self.reports = reports
        self.reportLimiter = ReportRateLimiter(perMinute: reports.configuration.perAddressPerMinute)
        self.store = store
        self.metrics = metrics
        self.logger = logger
        let body = (try? JSONCoding.encoder.encode(service.keySet())).map { [UInt8]($0) } ?? []
        let etag = PublishedDocument.etag(for: body)
        let cacheControl = "public, max-age=300"
        keysETag = Array(etag.utf8)
        keys = PreparedResponse(
            status: 200,
            headers: [("Content-Type", "application/json"), ("ETag", etag), ("Cache-Control", cacheControl)],
            body: body)
        // The 304 is built over the 200's bytes (not sent) so its Content-Length is the 200's, as RFC 9110 §8.6 asks.
        let stored = body.withUnsafeBytes { body in
            StoredDocument.make(
                version: 0, host: UnsafeRawBufferPointer(start: nil, count: 0),
                etag: UnsafeRawBufferPointer(start: nil, count: 0), body: body)
        }
        keysNotModified = stored.withBody { body in
            .notModified(headers: [("ETag", etag), ("Cache-Control", cacheControl)], representation: body, owner: stored)
        }
    }

    private static let pinsPrefix: StaticString = "/pins/"

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let method = request.method
        if method == .get || method == .head,
            let response = request.withPathBytes({ path in servePinsFast(path, request) })
        {
            return response
        }
        let (route, response) = route(request)
        if let route {
            switch response {
            case .prepared(let prepared): metrics.count(route, status: prepared.status)
            case .dynamic(let status, _, _): metrics.count(route, status: status)
            }
        }
        return response
    }

    // MARK: Public read path

    /// `GET /pins/{host}` for a host already in normal form: one dictionary lookup and a pre-built answer.
    /// Returns `nil` for every other request, which then takes the general route.
    @inline(__always)
    private func servePinsFast(_ path: UnsafeRawBufferPointer, _ request: HTTPRequest) -> HTTPResponse? {
        let prefix = Self.pinsPrefix
        guard path.count > prefix.utf8CodeUnitCount,
            memcmp(path.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
        else { return nil }
        guard let entry = snapshot.entry(UnsafeRawBufferPointer(rebasing: path[prefix.utf8CodeUnitCount...])) else {
            return nil
        }
        return answer(entry, request)
    }

    @inline(__always)
    private func answer(_ entry: DocumentSnapshot.Entry, _ request: HTTPRequest) -> HTTPResponse {
        let matches = request.withHeaderBytes("If-None-Match") { header in
            guard let header else { return false }
            return entry.document.withETag { IfNoneMatch.matches(header, etag: $0) }
        }
        if matches {
            metrics.count(.pins, status: 304)
            return .prepared(entry.notModifiedResponse(cacheControl: snapshot.cacheControl))
        }
        metrics.count(.pins, status: 200)
        return .prepared(entry.okResponse(cacheControl: snapshot.cacheControl))
    }

    /// `GET /pins/{host}` for a host not in normal form or not served: normalise, then 400 or 404.
    private func servePins(host raw: String, _ request: HTTPRequest) -> HTTPResponse {
        let host: String
        do {
            host = try HostName.normalize(raw)
        } catch {
            return Problem.invalidHost("\"\(raw.prefix(100))\" is not a valid host name: \(error.description)").response
        }
        guard let entry = snapshot.entry(host) else {
            return Problem.notFound("no pin set is published for \(host)").response
        }
        return answer(entry, request)
    }

    // MARK: General routing

    /// Answers a request off the fast path, with the route to count it under (`nil`: already counted).
    private func route(_ request: HTTPRequest) -> (ServerMetrics.Route?, HTTPResponse) {
        let path = request.path
        let method = request.method
        if path.hasPrefix("/pins/") {
            guard method == .get || method == .head else {
                return (.pins, Problem.methodNotAllowed(["GET", "HEAD"]).response)
            }
            let response = servePins(host: String(path.dropFirst(6)), request)
            // servePins counted 200/304 itself through answer(); count the errors here.
            if case .dynamic = response { return (.pins, response) }
            return (nil, response)
        }
        switch path {
        case "/keys":
            guard method == .get else { return (.keys, Problem.methodNotAllowed(["GET"]).response) }
            let fresh = request.withHeaderBytes("If-None-Match") { header in
                guard let header else { return false }
                return keysETag.withUnsafeBytes { IfNoneMatch.matches(header, etag: $0) }
            }
            return (.keys, .prepared(fresh ? keysNotModified : keys))
        case "/healthz":
            guard method == .get else { return (.healthz, Problem.methodNotAllowed(["GET"]).response) }
            return (.healthz, health())
        case "/metrics":
            guard method == .get else { return (.metrics, Problem.methodNotAllowed(["GET"]).response) }
            let body = Array(metrics.render(hosts: snapshot.count).utf8)
            return (.metrics, .dynamic(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: body))
        case "/reports":
            guard method == .post else { return (.reports, Problem.methodNotAllowed(["POST"]).response) }
            return (.reports, receiveReport(request))
        default:
            break
        }
        if ConsoleSite.owns(path) {
            return (nil, console.respond(to: request, path: path))  // static files: not counted in /metrics
        }
        if path == "/admin" || path.hasPrefix("/admin/") {
            return AdminRoutes(router: self, request: request).dispatch()
        }
        return (.unknown, Problem.notFound("there is no resource at \(path.prefix(200)); see openapi.yaml").response)
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
            metrics.report(host: snapshot.entry(stored.host) != nil ? stored.host : nil)
            return .dynamic(status: 204, headers: [], body: [])
        } catch {
            return problemResponse(for: error, path: "/reports")
        }
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
        return .dynamic(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"status":"ok"}"#.utf8))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
