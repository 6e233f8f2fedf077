import MicroHTTPD
import PinSetAdminAPI
import PinSetCore
import PinSetLogServer
import PinSetStorage

/// The public routes' handlers (PROTOCOL §3, §6): no token.
extension PinSetRouter {
    /// `GET`/`HEAD /pins/{host}` for a host not in normal form or not served (the fast path in ``handle(_:)``
    /// serves the rest): the host normalised (``RouteContext/host()``), then the document, `400` or `404`.
    func servePins(_ context: RouteContext) throws -> HTTPResponse {
        let host = try context.host()
        guard let response = snapshot.response(host, to: context.request) else {
            if snapshot.isDamaged(host) {
                throw ServiceError(
                    .documentDamaged,
                    "the stored document of \(host) is damaged (its bytes do not match their hash), so it is not served; the operator must write the host again or restore a backup"
                )
            }
            throw Problem.notFound("no pin set is published for \(host)")
        }
        return .prepared(response)
    }

    /// `GET /keys`: the JWKS built at start-up.
    func serveKeys(_ context: RouteContext) -> HTTPResponse {
        .prepared(keys.response(to: context.request))
    }

    /// `GET /healthz`: `200` while the database answers, else `503`.
    func health(_ context: RouteContext) throws -> HTTPResponse {
        guard store.isHealthy() else { throw Problem.unavailable("the database does not answer") }
        return .dynamic(
            status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"status":"ok"}"#.utf8))
    }

    /// `GET /readyz`: `200` while every readiness condition holds (``Readiness``), else `503` naming those that do
    /// not (`notReady`).
    func ready(_ context: RouteContext) throws -> HTTPResponse {
        let failures = readiness.notReady()
        guard failures.isEmpty else {
            var problem = Problem.unavailable(
                "not ready: " + failures.map { "\($0.name) (\($0.detail))" }.joined(separator: "; "))
            problem.slug = "not-ready"
            problem.title = "Not ready"
            problem.notReady = failures
            throw problem
        }
        let names = readiness.names.map { #""\#($0)""# }.joined(separator: ",")
        return .dynamic(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: Array(#"{"status":"ready","conditions":[\#(names)]}"#.utf8))
    }

    /// `pinset_log_forks`: forks of the log not acknowledged yet (PROTOCOL §7.2); nothing without a log.
    static func forkMetrics(_ log: LogPublisher?) -> String {
        guard let log else { return "" }
        return "# HELP pinset_log_forks Forks of the transparency log found and not acknowledged yet.\n"
            + "# TYPE pinset_log_forks gauge\npinset_log_forks \(log.forks.open)\n"
    }

    /// `GET /metrics`: the Prometheus exposition.
    func serveMetrics(_ context: RouteContext) throws -> HTTPResponse {
        // Host names only to a token's holder, and only its hosts (issue 40: an anonymous scrape listed every
        // partner host with its monitor result); a wrong token is a 401, so a misconfigured scraper shows.
        var scope: TokenScope?
        if context.request.header("Authorization") != nil {
            guard let caller = authenticate(context.request) else {
                throw Problem.unauthorized(
                    "the bearer token is not an active admin token; scrape without one for the aggregate series")
            }
            scope = caller.scope
        }
        let body = Array(
            (metrics.render(
                hosts: snapshot.count, builtHosts: snapshot.builtCount, delegation: try? trust.delegation(),
                scope: scope)
                + HostProbeMetrics.render(store, scope: scope) + Self.forkMetrics(log)
                + StorageMetrics.render(store: store, snapshot: snapshot, service: service)).utf8)
        return .dynamic(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: body)
    }

    /// `POST /reports`: rate-limited per source address (per /64 for IPv6, the forwarded address behind a trusted
    /// proxy) and checked here, on the worker thread (a 4xx at once); then stored (or counted, when a duplicate)
    /// off it, in a group commit with the reports that arrive meanwhile, and answered `204` once committed.
    func receiveReport(_ context: RouteContext) throws -> HTTPResponse {
        let sender = reportSender.key(
            remote: context.request.remoteAddress, forwardedFor: context.request.header("X-Forwarded-For"))
        if let wait = reportLimiter.take(sender) {
            var problem = Problem(
                slug: "rate-limited", title: "Too many reports", status: 429,
                detail: "this address sent too many reports; retry after \(wait) seconds")
            problem.headers = [("Retry-After", String(wait))]
            throw problem
        }
        // Names without a set share one budget, charged here from a one-pass read of the body (a few µs): a flood of
        // junk for invented names is refused before it costs a decoder and a hand-off (issue 40's B5r).
        try reports.admit(json: context.request.body, isPinned: snapshot.contains)
        // Decoding and checking a report (JSON, PEM, X.509: 50-100 µs) runs on the deferred pool too, never on the
        // thread that answers GET /pins (issue 40's B5r: a flood of junk reports must not slow reads); at most
        // `reportAdmission.limit` at once, so that reports never fill the pool's places that writes need.
        guard let ticket = reportAdmission.enter() else {
            var problem = Problem(
                slug: "rate-limited", title: "Too many reports", status: 429,
                detail: "too many reports are being checked; retry after 1 second")
            problem.headers = [("Retry-After", "1")]
            throw problem
        }
        let body = context.request.body
        return .deferred { [self] _ in
            defer { withExtendedLifetime(ticket) {} }
            do {
                let stored = try reports.store(try reports.check(json: body))
                metrics.report(host: snapshot.contains(stored.host) ? stored.host : nil)
                return .dynamic(status: 204, headers: [], body: [])
            } catch {
                return problemResponse(for: error, path: "/reports")
            }
        }
    }

    /// `GET /trust` and `GET /trust/{version}`: a pre-built answer, or `304`, or `404`.
    func serveTrust(_ context: RouteContext) throws -> HTTPResponse {
        var version: Int?
        if let text = context.parameters.first { version = try Self.trustVersion(text) }
        guard let document = trust.index.resource(version: version) else {
            if let version { throw Problem.notFound("there is no trust document version \(version)") }
            throw Problem.notFound("this server publishes no trust document (PROTOCOL §6)")
        }
        return .prepared(document.response(to: context.request))
    }

    /// `GET /console` and `GET /console/{asset}`: the admin console's static files.
    func serveConsole(_ context: RouteContext) throws -> HTTPResponse {
        try console.respond(to: context.request, path: context.request.path)
    }
}
