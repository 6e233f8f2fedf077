import Dispatch
import Locking

/// Holds the database's writes while start-up's integrity check runs (``PinDatabase/holdWrites()``): the server
/// answers reads from documents it loaded and checked against their hashes, and writes nothing into a file SQLite's
/// `quick_check` has not passed.
///
/// Open unless held: the CLI's commands never hold it. A write that finds it held waits, up to
/// ``PinDatabase/writeHoldLimit``; a gate shut for good (the check found damage) refuses at once, saying why.
package final class WriteGate: Sendable {
    private let held = DispatchGroup()
    private let refusal = Locked<String?>(nil)

    /// An open gate.
    package init() {}

    /// Holds writes until ``open()`` or ``refuse(_:)``; call once.
    package func hold() { held.enter() }

    /// Lets writes through; call once after ``hold()``.
    package func open() { held.leave() }

    /// Refuses every write from now on, with `reason`; call once after ``hold()``, instead of ``open()``.
    package func refuse(_ reason: String) {
        refusal.withLock { $0 = reason }
        held.leave()
    }

    /// Waits until the gate opens, is shut, or `seconds` have passed: `nil` when a write may go on, else why not.
    package func waitOpen(seconds: Double) -> String? {
        guard held.wait(timeout: .now() + seconds) == .success else {
            return "the database's start-up integrity check is still running: nothing was written; retry shortly"
        }
        return refusal.withLock { $0 }
    }
}
