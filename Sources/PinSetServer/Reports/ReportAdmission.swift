import Locking

/// Caps the reports being checked and stored on the deferred pool at once. `POST /reports` checks a report off the
/// thread that answers `GET /pins` (issue 40); past the cap it answers 429 on that thread instead, so that a flood of
/// reports from many addresses can never take the pool's places from writes on a server with a single listener.
final class ReportAdmission: Sendable {
    /// One place, held until the ticket is released: after its work ran, or when the work was dropped unrun (the
    /// wrapper's 503 when the pool is full). The deferred work holds it.
    final class Ticket: Sendable {
        private let admission: ReportAdmission

        fileprivate init(_ admission: ReportAdmission) { self.admission = admission }

        deinit { admission.held.withLock { $0 -= 1 } }
    }

    /// How many reports may be checked or stored at once.
    let limit: Int
    private let held = Locked(0)

    init(limit: Int) { self.limit = limit }

    /// A ticket while fewer than ``limit`` are held, else `nil`.
    func enter() -> Ticket? {
        let admitted = held.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return admitted ? Ticket(self) : nil
    }

    /// How many tickets are held now.
    var current: Int { held.withLock { $0 } }
}
