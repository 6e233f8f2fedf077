import Locking

/// What libmicrohttpd's callbacks need, passed to them as an unretained pointer; the ``HTTPServer`` owns it
/// and keeps it alive until `MHD_stop_daemon` has returned.
final class ServerContext: @unchecked Sendable {
    /// Counters shared by the MHD threads.
    struct Counters {
        /// Requests between their first handler call and their completion notification.
        var inFlight = 0
        /// Open connections (accepted and not yet closed).
        var connections = 0
    }

    let handler: any HTTPHandler
    let maxBodyBytes: Int
    let counters = Locked(Counters())
    /// The per-request deadline and its sweeper; `nil` when the request timeout is off.
    let deadlines: RequestDeadlines?
    /// The 413 answer, built once.
    let payloadTooLarge: PreparedResponse
    /// The 500 answer when a dynamic response cannot be built (bad header from the handler).
    let internalError: PreparedResponse

    init(handler: any HTTPHandler, maxBodyBytes: Int, requestTimeoutSeconds: Int) {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        deadlines = requestTimeoutSeconds > 0 ? RequestDeadlines(timeoutSeconds: requestTimeoutSeconds) : nil
        payloadTooLarge = handler.payloadTooLargeResponse(limit: maxBodyBytes)
        internalError = handler.internalErrorResponse()
    }
}
