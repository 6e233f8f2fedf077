import Dispatch
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT, caught from the moment this is made, for the process's one way to stop cleanly: a polling
/// loop checks ``isStopped`` (or ``sleep(_:)``) between two steps; `pinset serve` awaits ``wait()``, which returns
/// at once if a signal already came.
final class StopSignal: Sendable {
    private struct State {
        var fired = false
        var count = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())
    private let sources: Locked<[any DispatchSourceSignal]> = Locked([])

    /// Installs the handlers; they live as long as this object.
    init() {
        let queue = DispatchQueue(label: "pinset.stop-signal")
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    /// Stops as a signal would, without counting as one (`pinset serve` when start-up's integrity check fails).
    func stop() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.fired = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    private func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.fired = true
            state.count += 1
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
