import MicroHTTPD
import PinSetAdminAPI

/// One HTTP route the server answers: a method, a path template with `{name}` placeholders, the right a caller
/// needs, and the handler. ``RouteTable/all`` lists every one; nothing else matches paths.
struct Route: Sendable {
    /// What a route does with a matched request: answers it, or throws an ``HTTPProblemError`` (anything else is a
    /// logged 500). The router catches in one place (``PinSetRouter/dispatch(_:)``).
    typealias Handler = @Sendable (PinSetRouter, RouteContext) throws -> HTTPResponse

    /// The HTTP method, upper case (`GET`, `HEAD`, `PUT`, ...).
    let method: String
    /// The path template, e.g. `/pins/{host}`.
    let path: String
    /// Who may call it. There is no default: a route states its right or does not compile.
    let access: Access
    /// Counted in `/metrics` under its template (the console's static files are not).
    let counted: Bool
    /// A write that may probe its host before answering (pre-flight check or `capture`), or wait for the
    /// transparency log's checkpoint: answered off the worker thread (``HTTPResponse/deferred(_:)``).
    let mayProbe: Bool
    /// Always answered off the worker thread: a trust push waits for the log's checkpoint and, with a next key,
    /// re-signs every host's document.
    let deferred: Bool
    let handler: Handler

    init(
        method: String, path: String, _ access: Access, counted: Bool = true, mayProbe: Bool = false,
        deferred: Bool = false, _ handler: @escaping Handler
    ) {
        self.method = method
        self.path = path
        self.access = access
        self.counted = counted
        self.mayProbe = mayProbe
        self.deferred = deferred
        self.handler = handler
    }

    /// The right a route needs. A token route is authenticated first (`401`), then checked (`403` naming the
    /// missing right) before its handler runs, so a token never learns whether a host outside its scope exists.
    enum Access: Sendable {
        /// No token: the public routes.
        case anyone
        /// The `reader` role; the handler filters what it answers to the token's hosts.
        case reader
        /// The `reader` role on the path's `{host}`.
        case readerOfHost
        /// The `writer` role on the path's `{host}`.
        case writerOfHost
        /// The `reader` role on the `?host=` of the query, when given (the handler filters the rest out).
        case readerOfQueryHost
        /// The `admin` role: server-wide resources (trust documents, tokens).
        case admin

        /// Whether the route needs a bearer token.
        var needsToken: Bool {
            if case .anyone = self { return false }
            return true
        }

        /// The right `context` needs; `nil` for ``anyone``. A malformed host names no host: the handler answers
        /// `400` for it.
        func right(_ context: RouteContext) -> AdminRight? {
            switch self {
            case .anyone: nil
            case .reader: .requires(.reader)
            case .readerOfHost: .requires(.reader, host: try? context.host())
            case .writerOfHost: .requires(.writer, host: try? context.host())
            case .readerOfQueryHost: .requires(.reader, host: try? context.queryHost())
            case .admin: .admin
            }
        }
    }
}
