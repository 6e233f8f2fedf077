import Locking

/// Where an updater's events go: the legacy single stream (``PinSetUpdater/events``) and every stream handed out
/// by ``subscribe()``, each of which receives every event (a security logger never loses a `.pinFailure` to
/// another consumer). Each subscriber buffers its newest 256 events if it does not keep up.
final class UpdateEventSink: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<UpdateEvent>.Continuation] = [:]
        var next: UInt64 = 0
        var finished = false
        var observers: [@Sendable (UpdateEvent) -> Void] = []
    }

    private let legacy: AsyncStream<UpdateEvent>.Continuation
    private let state = Locked(State())

    init(legacy: AsyncStream<UpdateEvent>.Continuation) { self.legacy = legacy }

    /// Sends `event` to every stream, in the order of the calls.
    func yield(_ event: UpdateEvent) {
        // Under the lock, so that two threads' events reach every subscriber in the same order.
        let observers = state.withLock { state in
            legacy.yield(event)
            for continuation in state.subscribers.values { continuation.yield(event) }
            return state.observers
        }
        for observer in observers { observer(event) }
    }

    /// Calls `observer` synchronously for every later event, on the thread that produced it (keep it quick).
    func observe(_ observer: @escaping @Sendable (UpdateEvent) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// A new stream of every event from now on; finished when the sink finishes (at once if it has).
    func subscribe() -> AsyncStream<UpdateEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: UpdateEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id: UInt64? = state.withLock { state in
            guard !state.finished else { return nil }
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Finishes every stream; later ``subscribe()`` calls get finished streams.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        legacy.finish()
        for continuation in subscribers { continuation.finish() }
    }
}
