import Dispatch
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// The pipe the signal handler writes a byte into for each SIGTERM or SIGINT (write(2) is async-signal-safe): made
/// before the handler is installed, read by ``StopSignal``'s thread.
private let signalPipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { fatalError("cannot make the signal pipe: \(String(cString: strerror(errno)))") }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
}()

/// SIGTERM's and SIGINT's handler: one byte into ``signalPipe``, nothing else.
private func onStopSignal(_: Int32) {
    var byte: UInt8 = 1
    _ = write(signalPipe.write, &byte, 1)
}

/// SIGTERM and SIGINT, caught from the moment this is made, for the process's one way to stop cleanly: a polling
/// loop checks ``isStopped`` (or ``sleep(_:)``) between two steps; `pinset serve` awaits ``wait()``, which returns
/// at once if a signal already came.
///
/// The handler is installed with `sigaction` before `init` returns, so a signal sent as soon as a banner is read
/// is never lost. (A `DispatchSource` registers its signal asynchronously, on libdispatch's own thread, after
/// `resume()` returns; with the signal ignored meanwhile, a SIGTERM in that window was discarded and the process
/// never stopped: a test that stopped a witness right after its banner hung.) Make one per process.
final class StopSignal: Sendable {
    private struct State {
        var fired = false
        var count = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Installs the handlers, and a thread that turns each signal into ``fire()``; they live as long as the process.
    init() {
        let pipe = signalPipe  // made before any handler can run
        let thread = Thread { [weak self] in
            var byte: UInt8 = 0
            while true {
                let count = read(pipe.read, &byte, 1)
                if count == 1 {
                    self?.fire()
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        thread.name = "pinset.stop-signal"
        thread.start()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = onStopSignal
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for signalNumber in [SIGTERM, SIGINT] { sigaction(signalNumber, &action, nil) }
    }

    /// Stops as a signal would, without counting as one (`pinset serve` when start-up's integrity check fails).
    func stop() { fire(counting: false) }

    private func fire(counting: Bool = true) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.fired = true
            if counting { state.count += 1 }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Whether a signal arrived.
    var isStopped: Bool { state.withLock { $0.fired } }

    /// How many signals arrived (a second one ends `pinset serve`'s drain period).
    var count: Int { state.withLock { $0.count } }

    /// Sleeps up to `seconds`, waking early when a signal arrives; returns whether one did.
    func sleep(_ seconds: Double) -> Bool {
        var left = seconds
        while left > 0, !isStopped {
            let step = min(left, 0.05)
            usleep(useconds_t(step * 1_000_000))
            left -= step
        }
        return isStopped
    }

    /// Returns once SIGTERM or SIGINT arrived (at once if one already did).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state -> Bool in
                if !state.fired { state.waiter = continuation }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}
