internal import CMicroHTTPD
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server over libmicrohttpd: epoll with an internal thread pool, keep-alive, body limits.
///
/// It listens from `init` until ``shutdown(gracePeriodSeconds:)`` (or `deinit`). The handler runs on
/// libmicrohttpd's threads, possibly on several at once.
public final class HTTPServer: @unchecked Sendable {
    /// The bound port (an ephemeral `port: 0` resolved).
    public let port: UInt16
    private let context: ServerContext
    /// The daemon; `nil` once stopped. Guarded by `lifecycle`.
    private var daemon: OpaquePointer?
    private let lifecycle = Locked(())

    /// Starts listening with `configuration` and answers every request with `handler`.
    ///
    /// - Throws: ``HTTPServerError`` with `.invalidBindAddress`, `.invalidConfiguration` (a negative or zero
    ///   limit, no thread) or `.bindFailed(address, port)` when the socket cannot be bound.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) throws(HTTPServerError) {
        let c = configuration
        func require(_ ok: Bool, _ field: String) throws(HTTPServerError) {
            if !ok { throw HTTPServerError(.invalidConfiguration(field)) }
        }
        try require(HTTPServerConfiguration.threadRange.contains(c.threads), "threads")
        try require(c.connectionLimit >= 1 && c.connectionLimit <= Int(Int32.max), "connectionLimit")
        try require(
            c.perAddressConnectionLimit >= 0 && c.perAddressConnectionLimit <= Int(Int32.max),
            "perAddressConnectionLimit")
        try require(c.idleTimeoutSeconds >= 0 && c.idleTimeoutSeconds <= Int(Int32.max), "idleTimeoutSeconds")
        try require(
            c.requestTimeoutSeconds >= 0 && c.requestTimeoutSeconds <= 86_400 * 365, "requestTimeoutSeconds")
        try require(c.maxBodyBytes >= 0, "maxBodyBytes")
        try require(c.connectionMemoryLimit >= 4096, "connectionMemoryLimit")
        try require(c.maxSuspended >= 1, "maxSuspended")
        try require(c.deferredThreads >= 1, "deferredThreads")
        guard var address = SocketAddress(literal: c.bindAddress, port: c.port) else {
            throw HTTPServerError(.invalidBindAddress(c.bindAddress))
        }

        _ = MHDCallbacks.installPanic
        let context = ServerContext(
            handler: handler, maxBodyBytes: c.maxBodyBytes, requestTimeoutSeconds: c.requestTimeoutSeconds,
            maxSuspended: c.maxSuspended, deferredThreads: c.deferredThreads, errorLog: c.errorLog)
        let cls = Unmanaged.passUnretained(context).toOpaque()
        let clsArg = OpaquePointer(cls)
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        if c.errorLog != nil { flags |= MHD_USE_ERROR_LOG.rawValue }
        let completed = unsafeBitCast(MHDCallbacks.completed, to: OpaquePointer.self)
        let connectionEvent = unsafeBitCast(MHDCallbacks.connectionEvent, to: OpaquePointer.self)
        let unescape = unsafeBitCast(MHDCallbacks.unescape, to: OpaquePointer.self)
        let log = unsafeBitCast(MHDCallbacks.log, to: OpaquePointer.self)

        let started: OpaquePointer? = withUnsafePointer(to: &address.storage) { sockaddrPointer in
            // The logger comes first: libmicrohttpd sends messages about the options before it to stderr.
            var options: [any CVarArg] = [
                MHD_OPTION.EXTERNAL_LOGGER.rawValue, log, clsArg,
                MHD_OPTION.SOCK_ADDR.rawValue, OpaquePointer(sockaddrPointer),
                MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(c.connectionLimit),
                MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(c.perAddressConnectionLimit),
                MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(c.idleTimeoutSeconds),
                MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, Int(c.connectionMemoryLimit),
                MHD_OPTION.NOTIFY_COMPLETED.rawValue, completed, clsArg,
                MHD_OPTION.NOTIFY_CONNECTION.rawValue, connectionEvent, clsArg,
                MHD_OPTION.UNESCAPE_CALLBACK.rawValue, unescape, clsArg,
            ]
            // One thread is the daemon's own: a pool of one is refused with a warning.
            if c.threads > 1 { options += [MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(c.threads)] }
            options.append(MHD_OPTION.END.rawValue)
            return withVaList(options) { args in
                MHD_start_daemon_va(
                    UInt32(flags), c.port, MHDCallbacks.acceptPolicy, cls, MHDCallbacks.access, cls, args)
            }
        }
        let daemon = try MHDCall.nonNull(started, .bindFailed(c.bindAddress, c.port))
        guard let info = cmhd_daemon_info(daemon, .DAEMON_INFO_BIND_PORT) else {
            MHD_stop_daemon(daemon)
            throw HTTPServerError(.callFailed("MHD_get_daemon_info(BIND_PORT)"))
        }
        self.port = info.pointee.port
        self.context = context
        self.daemon = daemon
        context.deadlines?.start()
    }

    /// The number of open client connections (idle keep-alive ones included).
    public var activeConnections: Int {
        context.counters.withLock { $0.connections }
    }

    /// The number of connections closed because a request overran ``HTTPServerConfiguration/requestTimeoutSeconds``.
    public var connectionsClosedByRequestTimeout: Int {
        context.deadlines?.expiredCount ?? 0
    }

    /// Stops the server gracefully: refuses new connections at once, lets requests already in progress finish for up to
    /// `gracePeriodSeconds` (default 10) and deferred work (``HTTPResponse/deferred(_:)``) for up to 30 s more,
    /// then closes every connection and joins the threads.
    ///
    /// Idempotent; also called (with the default grace period) by `deinit`.
    /// - Warning: do not call it from inside a handler: it waits for that very request.
    public func shutdown(gracePeriodSeconds: Double = 10) {
        lifecycle.withLock { _ in
            guard let daemon else { return }
            // New connections are refused from here on by the accept policy, not by MHD_quiesce_daemon: in
            // libmicrohttpd 0.9.75 quiesce races with the epoll workers and can abort the process (ServerContext).
            context.isStopping.store(true, ordering: .releasing)
            let deadline = Self.now() + max(0, gracePeriodSeconds)
            while context.counters.withLock({ $0.inFlight }) > 0 && Self.now() < deadline {
                usleep(5_000)
            }
            // Deferred work (a write waiting for a probe, which has a deadline of its own) gets up to 30 s more
            // to finish and answer: the caller closes what it works on (the database) once this returns.
            let workDeadline = Self.now() + 30
            while context.runningDeferred > 0 && Self.now() < workDeadline { usleep(5_000) }
            // libmicrohttpd must not be stopped with suspended connections: answer whatever is still stuck
            // with the internal error, and give the worker threads a moment to send it.
            if context.resumeAll(with: .prepared(context.internalError)) > 0 {
                let flush = Self.now() + 0.5
                while context.counters.withLock({ $0.inFlight }) > 0 && Self.now() < flush { usleep(5_000) }
            }
            context.deadlines?.stop()
            context.deferredPool.stop()
            MHD_stop_daemon(daemon)
            self.daemon = nil
        }
    }

    deinit {
        shutdown()
    }

    private static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
