import Dispatch
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGTERM and SIGINT into a flag a polling loop checks, so it stops between two steps, cleanly.
final class StopSignal: Sendable {
    private let stopped = Locked(false)
    private let sources: Locked<[any DispatchSourceSignal]> = Locked([])

    /// Installs the handlers; they live as long as this object.
    init() {
        let queue = DispatchQueue(label: "pinset.stop-signal")
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [stopped] in stopped.withLock { $0 = true } }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }

    /// Whether a signal arrived.
    var isStopped: Bool { stopped.withLock { $0 } }

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
}
