internal import CMicroHTTPD
import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Closes connections that take too long over one request: the defence against slowloris clients.
///
/// libmicrohttpd 0.9.75's own timeout is an idle timeout, reset by every byte, so a client that trickles one
/// header byte a second holds its connection (and a slot of the connection limit) forever. Here every connection
/// has a window that opens when it is accepted and again each time a request completes; if the next request has
/// not been answered and sent within `timeout`, a sweeper thread shuts the socket down and libmicrohttpd closes
/// the connection on its next read. An idle keep-alive connection therefore also goes at `timeout` (or at the
/// idle timeout, whichever is sooner).
///
/// The hot path pays one relaxed atomic load and store per request (re-arming the window); the sweeper reads a
/// coarse clock it keeps itself, so no request reads the clock. A connection is registered when accepted and
/// removed in libmicrohttpd's close notification, which comes before libmicrohttpd closes the descriptor; both
/// happen under the same lock as the sweep, so the sweeper never shuts down a descriptor that was reused.
final class RequestDeadlines: @unchecked Sendable {
    /// The window for one request, in milliseconds.
    let timeoutMilliseconds: Int64
    /// Milliseconds of the monotonic clock, refreshed by the sweeper every `interval`.
    private let clock: Atomic<Int64>
    /// Set to stop the sweeper.
    private let stopFlag = Atomic<Bool>(false)
    /// Open connections, keyed by identity.
    private let open = Locked([ObjectIdentifier: ConnectionState]())
    /// Connections closed because their window ran out.
    private let expired = Locked(0)
    private let intervalMicroseconds: UInt32
    private var thread: pthread_t?

    /// Creates the deadlines for `timeoutSeconds` (greater than 0); ``start()`` launches the sweeper.
    init(timeoutSeconds: Int) {
        timeoutMilliseconds = Int64(timeoutSeconds) * 1000
        // A quarter of the window, between 50 ms and 250 ms: a connection overstays by at most that much.
        intervalMicroseconds = UInt32(min(250_000, max(50_000, timeoutMilliseconds * 250)))
        clock = Atomic(Self.monotonicMilliseconds())
    }

    deinit {
        stop()
    }

    /// The number of connections closed so far because a request overran its window.
    var expiredCount: Int { expired.withLock { $0 } }

    /// Registers a newly accepted connection and opens its first window.
    func register(_ state: ConnectionState) {
        arm(state)
        open.withLock { $0[ObjectIdentifier(state)] = state }
    }

    /// Forgets a connection; called from libmicrohttpd's close notification, before the descriptor is closed.
    func unregister(_ state: ConnectionState) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(state)) }
    }

    /// Opens a new window for the connection's next request (called when a request completes).
    @inline(__always)
    func arm(_ state: ConnectionState) {
        state.windowStart.store(clock.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// Starts the sweeper thread.
    func start() {
        var handle = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(
            &handle, nil,
            { raw in
                #if canImport(Darwin)
                    let deadlines = Unmanaged<RequestDeadlines>.fromOpaque(raw).takeRetainedValue()
                #else
                    let deadlines = Unmanaged<RequestDeadlines>.fromOpaque(raw!).takeRetainedValue()
                #endif
                deadlines.run()
                return nil
            }, box)
        if status == 0 {
            thread = handle
        } else {
            Unmanaged<RequestDeadlines>.fromOpaque(box).release()
        }
    }

    /// Stops the sweeper and waits for it; idempotent.
    func stop() {
        guard let thread else { return }
        stopFlag.store(true, ordering: .relaxed)
        pthread_join(thread, nil)
        self.thread = nil
    }

    private func run() {
        while !stopFlag.load(ordering: .relaxed) {
            usleep(intervalMicroseconds)
            let now = Self.monotonicMilliseconds()
            clock.store(now, ordering: .relaxed)
            sweep(now: now)
        }
    }

    private func sweep(now: Int64) {
        open.withLock { open in
            for state in open.values where !state.closedByDeadline {
                if now - state.windowStart.load(ordering: .relaxed) > timeoutMilliseconds {
                    // Counted before the shutdown, so whoever sees the connection close also sees the count.
                    expired.withLock { $0 += 1 }
                    state.closedByDeadline = true
                    // libmicrohttpd sees end-of-file or an error on its next read or write and closes the
                    // connection itself (which unregisters it).
                    shutdown(state.socket, Int32(SHUT_RDWR))
                }
            }
        }
    }

    private static func monotonicMilliseconds() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }
}
