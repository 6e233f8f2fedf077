/// What a handler answers.
public enum HTTPResponse {
    /// A response built once and queued again and again: the hot path, no allocation per request.
    case prepared(PreparedResponse)
    /// A response built for this request only: status, headers and body are copied into libmicrohttpd.
    ///
    /// Do not pass `Content-Length` (libmicrohttpd sets it); header names and values must not contain CR or LF.
    case dynamic(status: Int, headers: [(String, String)], body: [UInt8])
    /// An answer that waits on something slow (a network probe): the wrapper copies the request
    /// (``HTTPRequest/isDetached``), suspends the connection so that the worker thread goes on serving other
    /// connections, runs `work` on a thread of the deferred pool and resumes the connection with its answer. Beyond
    /// ``HTTPServerConfiguration/maxSuspended`` waiting requests, the answer is the handler's 503
    /// (`overloadedResponse`) and `work` is released without running.
    /// `work` must not answer `.deferred` again (that is answered with the internal error response).
    case deferred(@Sendable (HTTPRequest) -> HTTPResponse)
}
