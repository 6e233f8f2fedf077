import MicroHTTPD
import PinSetAdminAPI

/// One HTTP route the server answers: a method, a path template with `{name}` placeholders, the right a caller
/// needs, and what answers it. ``RouteTable/all`` lists every one; nothing else matches paths.
struct Route: Sendable {
    /// What a route does with a matched request: answers it, or throws an ``HTTPProblemError`` (anything else is a
    /// logged 500). The router catches in one place (``PinSetRouter/dispatch(_:path:match:route:label:)``).
    typealias Handler = @Sendable (PinSetRouter, RouteContext) throws -> HTTPResponse

    /// A host write's first step, on the worker thread: the request read and checked into one ``WriteCommand``
    /// (the host normalised, the body parsed), or a thrown ``HTTPProblemError``.
    typealias Command = @Sendable (PinSetRouter, RouteContext) throws -> WriteCommand

    /// How a route answers, and so whether its answer may wait off libmicrohttpd's worker thread
    /// (``HTTPResponse/deferred(_:)``): the route says whether it may, the service whether this request does.
    enum Action: Sendable {
        /// Answered at once, on the worker thread.
        case answer(Handler)
        /// A host write: its command is made at once; it runs off the worker thread when
        /// ``PinSetService/waits(_:)`` says it waits (a probe of its host, the log's next checkpoint), else at once.
        case write(Command)
        /// Always answered off the worker thread: a trust push waits for the log's checkpoint and, with a next key,
        /// re-signs every host's document.
        case deferred(Handler)
    }

    /// The HTTP method, upper case (`GET`, `HEAD`, `PUT`, ...).
    let method: String
    /// The path template, e.g. `/pins/{host}`.
    let path: String
    /// Who may call it. There is no default: a route states its right or does not compile.
    let access: Access
    /// Counted in `/metrics` under its template (the console's static files are not).
    let counted: Bool
    /// What answers it.
    let action: Action

    /// A route answered at once by `handler`.
    init(
        method: String, path: String, _ access: Access, counted: Bool = true, _ handler: @escaping Handler
    ) {
        self.init(method: method, path: path, access, counted: counted, action: .answer(handler))
    }

    /// Marks a host write in ``RouteTable/all``: it may wait (``Action/write(_:)``).
    enum MayWait: Sendable {
        /// Whether this request waits is the service's answer (``PinSetService/waits(_:)``).
        case mayWait
    }

    /// Marks a route in ``RouteTable/all`` that always waits (``Action/deferred(_:)``).
    enum AlwaysWaits: Sendable {
        /// Always answered off the worker thread.
        case alwaysWaits
    }

    /// A host write: `command` makes its command, the service runs it (``Action/write(_:)``).
    init(method: String, path: String, _ access: Access, _ waits: MayWait, _ command: @escaping Command) {
        self.init(method: method, path: path, access, counted: true, action: .write(command))
    }

    /// A route always answered off the worker thread by `handler` (``Action/deferred(_:)``).
    init(method: String, path: String, _ access: Access, _ waits: AlwaysWaits, _ handler: @escaping Handler) {
        self.init(method: method, path: path, access, counted: true, action: .deferred(handler))
    }

    private init(method: String, path: String, _ access: Access, counted: Bool, action: Action) {
        self.method = method
        self.path = path
        self.access = access
        self.counted = counted
        self.action = action
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
