import Synchronization

/// Per-connection state, created when libmicrohttpd accepts a socket and freed when it closes it.
///
/// It is reused by every request on a keep-alive connection, so a request answered with a prepared
/// response allocates nothing in the wrapper. A connection is served by one thread at a time.
///
/// The fields live behind a pointer rather than in stored properties: a class's stored `var`s get a dynamic
/// exclusivity check (`swift_beginAccess`) on every access, which callgrind showed to cost hundreds of
/// instructions per request on the hot path.
final class ConnectionState {
    struct Fields {
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
        /// True once ``RequestDeadlines`` shut the socket down (touched only under its lock).
        var closedByDeadline = false
        /// The answer of deferred work, set by the thread that resumes the connection, before it resumes it
        /// (libmicrohttpd's resume orders the write before the worker thread's read).
        var pending: HTTPResponse? = nil
        /// The string libmicrohttpd unescaped in place that held a control character once decoded (the path or a
        /// query argument: the access handler compares it with the path it is given).
        var controlCharacterIn: UnsafeMutablePointer<CChar>? = nil
    }

    private let fields: UnsafeMutablePointer<Fields>
    /// The connection's socket, for ``RequestDeadlines`` to shut down.
    let socket: Int32
    /// When the current request window opened (``RequestDeadlines``' clock, milliseconds).
    let windowStart = Atomic<Int64>(0)

    init(socket: Int32) {
        self.socket = socket
        fields = .allocate(capacity: 1)
        fields.initialize(to: Fields())
    }

    deinit {
        fields.deinitialize(count: 1)
        fields.deallocate()
    }

    var body: [UInt8] {
        get { fields.pointee.body }
        _modify { yield &fields.pointee.body }
    }
    var controlCharacterIn: UnsafeMutablePointer<CChar>? {
        get { fields.pointee.controlCharacterIn }
        set { fields.pointee.controlCharacterIn = newValue }
    }
    var bodyTooLarge: Bool {
        get { fields.pointee.bodyTooLarge }
        set { fields.pointee.bodyTooLarge = newValue }
    }
    var discarded: Int {
        get { fields.pointee.discarded }
        set { fields.pointee.discarded = newValue }
    }
    var responseQueued: Bool {
        get { fields.pointee.responseQueued }
        set { fields.pointee.responseQueued = newValue }
    }
    var inRequest: Bool {
        get { fields.pointee.inRequest }
        set { fields.pointee.inRequest = newValue }
    }
    var closedByDeadline: Bool {
        get { fields.pointee.closedByDeadline }
        set { fields.pointee.closedByDeadline = newValue }
    }
    var pending: HTTPResponse? {
        get { fields.pointee.pending }
        set { fields.pointee.pending = newValue }
    }

    /// Clears what one request left behind, keeping the body's capacity for the next one.
    @inline(__always)
    func reset() {
        if !fields.pointee.body.isEmpty {
            fields.pointee.body.removeAll(keepingCapacity: fields.pointee.body.capacity <= 16_384)
        }
        fields.pointee.bodyTooLarge = false
        fields.pointee.discarded = 0
        fields.pointee.responseQueued = false
        fields.pointee.inRequest = false
        if fields.pointee.pending != nil { fields.pointee.pending = nil }
        fields.pointee.controlCharacterIn = nil
    }
}
