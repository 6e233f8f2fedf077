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
}
