/// What a handler answers.
public enum HTTPResponse {
    /// A response built once and queued again and again: the hot path, no allocation per request.
    case prepared(PreparedResponse)
    /// A response built for this request only: status, headers and body are copied into libmicrohttpd.
    ///
    /// Do not pass `Content-Length` (libmicrohttpd sets it); header names and values must not contain CR or LF.
    case dynamic(status: Int, headers: [(String, String)], body: [UInt8])
}
