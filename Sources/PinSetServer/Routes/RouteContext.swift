import MicroHTTPD
import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// A request matched to its ``Route``, as its handler sees it: the placeholders' values and the caller, found
/// once per request.
struct RouteContext: Sendable {
    /// The request.
    private(set) var request: HTTPRequest
    /// The values of the template's placeholders, in order.
    let parameters: [Substring]
    /// The token behind a token route (authenticated once, before the rights check); `nil` on public routes.
    let caller: AdminCaller?
    /// The first placeholder (`{host}`) in the protocol's host form, normalised once for the rights check and
    /// the handler.
    private let normalizedHost: Result<String, ServiceError>?

    init(request: HTTPRequest, parameters: [Substring], caller: AdminCaller?, hostParameter: Bool) {
        self.request = request
        self.parameters = parameters
        self.caller = caller
        normalizedHost =
            hostParameter
            ? Result { () throws(ServiceError) in try PinSetService.normalize(String(parameters[0])) } : nil
    }

    /// This context over `request`, the copy deferred work is given (``HTTPResponse/deferred(_:)``): the
    /// placeholders, the caller and the host as they were found, nothing matched or normalised again.
    func over(_ request: HTTPRequest) -> RouteContext {
        var context = self
        context.request = request
        return context
    }

    /// The path's `{host}` in normal form; `400` when it is malformed.
    func host() throws(ServiceError) -> String {
        guard let normalizedHost else { throw ServiceError(.badRequest, "this route names no host") }
        return try normalizedHost.get()
    }

    /// The `?host=` of the query in normal form, `nil` when absent; `400` when it is malformed.
    func queryHost() throws(ServiceError) -> String? {
        try request.query("host").map { raw throws(ServiceError) in try PinSetService.normalize(raw) }
    }

    /// The caller's scope (``TokenScope/full`` on a public route, which never filters by it).
    var scope: TokenScope { caller?.scope ?? .full }

    /// The caller's token name, for history and the log.
    var tokenName: String { caller?.name ?? "" }
}
