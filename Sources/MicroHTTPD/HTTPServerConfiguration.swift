/// How an ``HTTPServer`` listens and which limits it enforces.
///
/// Every field has a default, so `HTTPServerConfiguration()` is a loopback server on port 8080.
/// Reading values from flags or the environment is the caller's job.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 or IPv6 literal to bind to (`"127.0.0.1"`, `"0.0.0.0"`, `"::1"`, `"::"`). Default `"127.0.0.1"`.
    public var bindAddress: String
    /// The TCP port; `0` picks an ephemeral port, readable afterwards from ``HTTPServer/port``. Default 8080.
    public var port: UInt16
    /// Number of threads in libmicrohttpd's internal epoll thread pool (at least 1). Default 2.
    ///
    /// - Warning: the handler runs on these threads and blocks one for as long as it runs.
    public var threads: Int
    /// The thread counts the server accepts (the CLI checks the same range).
    public static let threadRange = 1...256
    /// Maximum number of simultaneous connections; further ones are closed at once. Default 1024.
    ///
    /// With several threads the limit is split evenly between them.
    public var connectionLimit: Int
    /// Maximum simultaneous connections from one IP address; `0` means unlimited (the default).
    public var perAddressConnectionLimit: Int
    /// Seconds a connection may stay idle (no byte in either direction) before it is closed; `0` never. Default 15.
    public var idleTimeoutSeconds: Int
    /// Seconds a connection gets for each request, from the end of the previous one (or the accept) until its
    /// answer is sent; when it runs out the connection is closed. `0` turns it off. Default 30.
    ///
    /// This is what closes slowloris clients, which trickle bytes just often enough to defeat the idle timeout.
    /// An idle keep-alive connection is also closed when it runs out.
    public var requestTimeoutSeconds: Int
    /// Largest request body accepted; larger ones get a `413` problem+json and the excess is never buffered.
    /// Default 65 536.
    public var maxBodyBytes: Int
    /// Per-connection memory for libmicrohttpd's read/write buffers; this caps the size of a request's head
    /// (request line and headers; beyond it: `414` or `431`). Default 32 768, libmicrohttpd's own default.
    ///
    /// libmicrohttpd 0.9.75 zeroes this pool between two requests on a keep-alive connection, so a smaller pool
    /// is cheaper per request (8 KiB saved ~17% of a `GET`'s CPU in the benchmarks), but it mishandles a head
    /// that ends within a few hundred bytes of the pool's size (it closes without an answer, or waits for the
    /// request deadline). API fuzzing reaches ~8 KiB heads, never ~32 KiB ones, so the default stays 32 KiB.
    public var connectionMemoryLimit: Int
    /// Most requests suspended at once while their ``HTTPResponse/deferred(_:)`` work runs or waits for one of
    /// the ``deferredThreads``; past it, a request that would defer gets `503` with `Retry-After` (the handler's
    /// ``HTTPHandler/overloadedResponse()``). Default 256.
    public var maxSuspended: Int
    /// Most threads running ``HTTPResponse/deferred(_:)`` work at once. They are started when needed and then
    /// reused; past this many busy ones, deferred work waits (its connection suspended) for a free thread.
    /// Default 32.
    ///
    /// - Warning: deferred work may wait seconds (a write's probe): with too few threads, slow writes delay the
    ///   others queued behind them. GETs never wait for these threads.
    public var deferredThreads: Int
    /// Receives libmicrohttpd's own error messages (a failed `accept` when the process is out of file descriptors,
    /// a socket error), one line each, from its threads. Default `nil`: they are dropped.
    /// - Warning: called on libmicrohttpd's threads, possibly often: it must be quick (rate-limit the logging).
    public var errorLog: (@Sendable (String) -> Void)? = nil

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        bindAddress: String = "127.0.0.1",
        port: UInt16 = 8080,
        threads: Int = 2,
        connectionLimit: Int = 1024,
        perAddressConnectionLimit: Int = 0,
        idleTimeoutSeconds: Int = 15,
        requestTimeoutSeconds: Int = 30,
        maxBodyBytes: Int = 65_536,
        connectionMemoryLimit: Int = 32_768,
        maxSuspended: Int = 256,
        deferredThreads: Int = 32
    ) {
        self.maxSuspended = maxSuspended
        self.deferredThreads = deferredThreads
        self.bindAddress = bindAddress
        self.port = port
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.perAddressConnectionLimit = perAddressConnectionLimit
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.maxBodyBytes = maxBodyBytes
        self.connectionMemoryLimit = connectionMemoryLimit
    }
}
