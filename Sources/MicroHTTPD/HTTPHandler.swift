/// Answers requests; called on libmicrohttpd's threads, possibly on several at once.
public protocol HTTPHandler: Sendable {
    /// Returns the answer to `request`.
    ///
    /// - Warning: `request` is only valid during this call; do not store it or let it escape into a task.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
