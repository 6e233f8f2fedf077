import Foundation
import PinSetStorage

/// Commits pin failure reports in groups: one transaction, so one fsync, for every report that arrived while the
/// previous group was being committed (issue 40: stored one by one on libmicrohttpd's thread, each with its own
/// fsync, a flood of junk reports queued the GETs behind them).
///
/// The caller of ``store(_:)`` that finds no commit under way commits the whole queue, its own report included;
/// the others wait for the commit that holds theirs. ``store(_:)`` returns once its report is committed, so a
/// report is durable before it is acknowledged. At most ``capacity`` reports wait; past that, `429` with
/// `Retry-After`.
final class ReportWriter: @unchecked Sendable {
    /// One checked report, when it was received and what may be pruned when it is stored.
    struct Entry: Sendable {
        var row: ReportTable.NewReport
        var seconds: Int64
        var cutoff: Int64
    }

    /// The most reports waiting for a commit (those of the commit under way not counted).
    let capacity: Int
    private let commit: @Sendable ([Entry]) throws(ServiceError) -> [Bool]
    private let condition = NSCondition()
    /// Guarded by `condition`: reports not yet taken by a commit, each with its number; the outcome of each
    /// committed report until its caller takes it; whether a commit is under way.
    private var queue: [(number: Int, entry: Entry)] = []
    private var outcomes: [Int: Result<Bool, ServiceError>] = [:]
    private var lastNumber = 0
    private var committing = false

    /// A writer that hands each group to `commit` (which stores it in one transaction and returns, per report,
    /// whether it was a duplicate); at most `capacity` reports wait.
    init(capacity: Int, commit: @escaping @Sendable ([Entry]) throws(ServiceError) -> [Bool]) {
        self.capacity = max(1, capacity)
        self.commit = commit
    }

    /// A writer over `store`: each group in one transaction, pruned with the newest cutoff of the group, rows per
    /// class capped at `maxRows`.
    convenience init(store: PinDatabase, maxRows: Int, capacity: Int = 512) {
        self.init(capacity: capacity) { entries throws(ServiceError) in
            let cutoff = entries.map(\.cutoff).max() ?? 0
            return try store.serializedWrite { db in
                var duplicates: [Bool] = []
                try db.inTransaction {
                    duplicates = try ReportTable.record(
                        db, entries.map { ($0.row, $0.seconds) }, cutoff: cutoff, maxRows: maxRows)
                    return .commit
                }
                return duplicates
            }
        }
    }

    /// How many reports wait for the next commit (tests: to know the queue is full before the next `store`).
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    /// Stores `entry` and returns once it is committed: whether it repeated an earlier identical report.
    ///
    /// - Throws: 429 (with `Retry-After: 1`) when ``capacity`` reports already wait; the commit's error otherwise.
    func store(_ entry: Entry) throws(ServiceError) -> Bool {
        condition.lock()
        guard queue.count < capacity else {
            condition.unlock()
            var error = ServiceError(
                .tooManyRequests, "too many reports are waiting to be stored; retry after 1 second")
            error.retryAfter = 1
            throw error
        }
        lastNumber += 1
        let mine = lastNumber
        queue.append((mine, entry))
        while true {
            if let outcome = outcomes.removeValue(forKey: mine) {
                condition.unlock()
                return try outcome.get()
            }
            guard !committing else {
                condition.wait()
                continue
            }
            committing = true
            let group = queue
            queue.removeAll(keepingCapacity: true)
            condition.unlock()
            let result: Result<[Bool], ServiceError>
            do {
                result = .success(try commit(group.map(\.entry)))
            } catch {
                result = .failure(error)
            }
            condition.lock()
            for (index, item) in group.enumerated() {
                outcomes[item.number] = result.map { $0[index] }
            }
            committing = false
            condition.broadcast()
        }
    }
}
