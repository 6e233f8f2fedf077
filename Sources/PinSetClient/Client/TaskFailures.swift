import Locking

/// The refusal recorded for each URL session task (``PinningClient``'s `failure(for:)`): the newest 256 are
/// kept, by task identifier.
final class TaskFailures: Sendable {
    private let state = Locked<(byTask: [Int: PinRefusal], order: [Int])>(([:], []))

    func record(_ refusal: PinRefusal, task: Int) {
        state.withLock { state in
            if state.byTask.updateValue(refusal, forKey: task) == nil { state.order.append(task) }
            if state.order.count > 256 { state.byTask.removeValue(forKey: state.order.removeFirst()) }
        }
    }

    func refusal(task: Int) -> PinRefusal? { state.withLock { $0.byTask[task] } }
}
