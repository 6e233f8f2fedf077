/// Answers requests; called on libmicrohttpd's threads, possibly on several at once.
///
/// The handler also gives the two answers the wrapper sends on its own, so that every error body the server
/// sends comes from the application (one problem+json writer, not two).
public protocol HTTPHandler: Sendable {
    /// Returns the answer to `request`.
    ///
    /// - Warning: `request` is only valid during this call; do not store it or let it escape into a task.
    func handle(_ request: HTTPRequest) -> HTTPResponse

    /// The `413` the wrapper sends when a request body is over `limit` bytes, before the handler sees it.
    /// Called once, when the server starts.
    func payloadTooLargeResponse(limit: Int) -> PreparedResponse

    /// The `500` the wrapper sends when it cannot build the handler's dynamic response (a header with CR or
    /// LF, out of memory). Called once, when the server starts.
    func internalErrorResponse() -> PreparedResponse

    /// The `400` the wrapper sends when the request's path holds a control character once percent-decoded (a
    /// NUL would end the path early: `/pins/a.example%00.evil` must not serve `a.example`). Called once, when the
    /// server starts. Default: a short `application/problem+json`.
    func badPathResponse() -> PreparedResponse

    /// The `503` the wrapper sends when a request would defer its work (``HTTPResponse/deferred(_:)``) while
    /// ``HTTPServerConfiguration/maxSuspended`` requests already wait for theirs. Called once, when the server
    /// starts. Default: a short `application/problem+json` with `Retry-After: 1`.
    func overloadedResponse() -> PreparedResponse
}

extension HTTPHandler {
    /// The default `503` when too many requests wait for deferred work.
    public func overloadedResponse() -> PreparedResponse {
        PreparedResponse(
            status: 503, headers: [("Content-Type", "application/problem+json"), ("Retry-After", "1")],
            body: Array(
                #"{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"too many requests are waiting for the server; retry after 1 second"}"#
                    .utf8))
    }

    /// The default `400` for a path with a control character.
    public func badPathResponse() -> PreparedResponse {
        PreparedResponse(
            status: 400, headers: [("Content-Type", "application/problem+json")],
            body: Array(
                #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"the path holds a control character (such as %00 or %0A) once percent-decoded"}"#
                    .utf8))
    }
}
