/// Per-connection state, created when libmicrohttpd accepts a socket and freed when it closes it.
///
/// It is reused by every request on a keep-alive connection, so a request answered with a prepared
/// response allocates nothing in the wrapper. A connection is served by one thread at a time.
final class ConnectionState {
    /// The request body received so far (at most `maxBodyBytes`).
    var body: [UInt8] = []
    /// True once the body (announced or received) went past `maxBodyBytes`; the rest is discarded.
    var bodyTooLarge = false
    /// Body bytes read and dropped after the body went past the limit.
    var discarded = 0
    /// True once a response is queued for the current request.
    var responseQueued = false
    /// True between the first handler call of a request and its completion notification.
    var inRequest = false

    /// Clears what one request left behind, keeping the body's capacity for the next one.
    @inline(__always)
    func reset() {
        if !body.isEmpty { body.removeAll(keepingCapacity: body.capacity <= 16_384) }
        bodyTooLarge = false
        discarded = 0
        responseQueued = false
        inRequest = false
    }
}
