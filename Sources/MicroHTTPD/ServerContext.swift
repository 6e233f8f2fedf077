internal import CMicroHTTPD
import Locking
import Synchronization

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
    /// Set when a shutdown begins: from then on the accept policy refuses every new connection. (This replaces
    /// `MHD_quiesce_daemon`, which races with the epoll worker threads in libmicrohttpd 0.9.75: a worker can try to
    /// remove the listening socket from its epoll set after quiesce did, get ENOENT and abort the process.)
    let isStopping = Atomic<Bool>(false)
    let counters = Locked(Counters())
    /// The per-request deadline and its sweeper; `nil` when the request timeout is off.
    let deadlines: RequestDeadlines?
    /// The 413 answer, built once.
    let payloadTooLarge: PreparedResponse
    /// The 500 answer when a dynamic response cannot be built (bad header from the handler).
    let internalError: PreparedResponse
    /// The 400 answer to a path with a control character once decoded.
    let badPath: PreparedResponse
    /// The 503 answer (with `Retry-After`) when ``maxSuspended`` requests already wait for deferred work.
    let overloaded: PreparedResponse
    /// The threads that run deferred work.
    let deferredPool: DeferredPool

    /// A connection suspended while its deferred work runs.
    struct Suspended: @unchecked Sendable {
        let connection: OpaquePointer
        let state: ConnectionState
    }
    /// The suspended connections by ticket. Exactly one party removes an entry and resumes its connection: the
    /// work's thread when it ends, or ``resumeAll(with:)`` at shutdown (libmicrohttpd must not be stopped with
    /// suspended connections).
    private let suspended = Locked<(next: Int, byTicket: [Int: Suspended])>((0, [:]))
    let maxSuspended: Int
    /// Where libmicrohttpd's error messages go (``HTTPServerConfiguration/errorLog``).
    let errorLog: (@Sendable (String) -> Void)?

    init(
        handler: any HTTPHandler, maxBodyBytes: Int, requestTimeoutSeconds: Int, maxSuspended: Int,
        deferredThreads: Int = 32, errorLog: (@Sendable (String) -> Void)? = nil
    ) {
        self.errorLog = errorLog
        self.maxSuspended = maxSuspended
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        deadlines = requestTimeoutSeconds > 0 ? RequestDeadlines(timeoutSeconds: requestTimeoutSeconds) : nil
        payloadTooLarge = handler.payloadTooLargeResponse(limit: maxBodyBytes)
        internalError = handler.internalErrorResponse()
        badPath = handler.badPathResponse()
        overloaded = handler.overloadedResponse()
        deferredPool = DeferredPool(maxThreads: deferredThreads)
    }

    /// Deferred work still running (its connection may already have been resumed by shutdown).
    private let running = Locked(0)

    /// How many deferred works are running.
    var runningDeferred: Int { running.withLock { $0 } }

    /// Registers `connection` for suspension; `nil` when ``maxSuspended`` are already suspended.
    func register(_ connection: OpaquePointer, _ state: ConnectionState) -> Int? {
        let ticket: Int? = suspended.withLock { table in
            guard table.byTicket.count < maxSuspended else { return nil }
            table.next += 1
            table.byTicket[table.next] = Suspended(connection: connection, state: state)
            return table.next
        }
        if ticket != nil { running.withLock { $0 += 1 } }
        return ticket
    }

    /// Runs `work` for the connection of `ticket` on the pool, then resumes it with the answer; when shutdown has
    /// already answered the connection before a thread was free, the work is dropped unrun.
    func start(_ ticket: Int, _ work: @escaping @Sendable (HTTPRequest) -> HTTPResponse, _ request: HTTPRequest) {
        deferredPool.submit { [self] in
            guard suspended.withLock({ $0.byTicket[ticket] != nil }) else {
                running.withLock { $0 -= 1 }
                return
            }
            resume(ticket, with: work(request))
        }
    }

    /// Ends the deferred work of `ticket`: resumes its connection with `response`, unless shutdown already did.
    func resume(_ ticket: Int, with response: HTTPResponse) {
        defer { running.withLock { $0 -= 1 } }
        guard let entry = suspended.withLock({ $0.byTicket.removeValue(forKey: ticket) }) else { return }
        entry.state.pending = response
        MHD_resume_connection(entry.connection)
    }

    /// Resumes every suspended connection with `response`; returns how many there were.
    func resumeAll(with response: HTTPResponse) -> Int {
        let entries = suspended.withLock { table in
            defer { table.byTicket.removeAll() }
            return Array(table.byTicket.values)
        }
        for entry in entries {
            entry.state.pending = response
            MHD_resume_connection(entry.connection)
        }
        return entries.count
    }
}
