import Foundation
import Locking
import Logging
import PinSetSigning
import PinSetStorage

/// Start-up's integrity check, SQLite's `PRAGMA quick_check`, and what follows from it once the server listens.
///
/// The check reads the whole file: about 1.5 s of CPU at a million hosts with a log, more than the load of the
/// documents. What the server answers meanwhile does not depend on it: every document was checked against its
/// stored hash as it loaded (a mismatch still refuses the start), and the log's hashes are in memory. So the server
/// listens once the documents are loaded, and until the check has passed:
/// - every write waits for it (``PinDatabase/holdWrites()``): nothing is written into a file it has not passed;
/// - `/readyz` answers `503` with the condition `integrity`, so a load balancer or a rolling update waits for it;
/// - damage it finds (or a check that cannot run) is logged at `critical`, refuses every write with the message a
///   refused start gives, and stops `pinset serve`, which exits with that message
///   (``PinSetServerApp/whenStartupCheckFails(_:)``): nothing was acknowledged. With `--serve-damaged` the damage is
///   recorded instead (`damaged_hosts` in `/metrics`), and writes go on, as the operator chose.
final class StartupIntegrity: Sendable {
    private enum State {
        case running
        case passed
        case failed(StartupError)
    }

    private let state = Locked(State.running)
    private let failed = Locked<[@Sendable () -> Void]>([])
    private let done = DispatchSemaphore(value: 0)

    /// Waits on a thread of its own for `check` (started by the caller, writes held), then opens the writes,
    /// records damage served with `serveDamaged`, or refuses them for good.
    init(check: QuickCheck, store: PinDatabase, databasePath: String, serveDamaged: Bool, logger: Logger) {
        let thread = Thread { [self] in
            let outcome = Self.judge(
                check, store: store, databasePath: databasePath, serveDamaged: serveDamaged, logger: logger)
            let handlers = state.withLock { state -> [@Sendable () -> Void] in
                state = outcome.map(State.failed) ?? .passed
                return outcome == nil ? [] : failed.withLock { $0 }
            }
            if let outcome {
                store.refuseWrites(outcome.description)
            } else {
                store.openWrites()
            }
            done.signal()
            for handler in handlers { handler() }
        }
        thread.name = "pinset.integrity"
        thread.start()
    }

    /// Why `/readyz` must say 503 (`integrity`): `nil` once the check has passed.
    var notPassed: String? {
        switch state.withLock({ $0 }) {
        case .running: "the database's integrity check (SQLite's quick_check) is still running; writes wait for it"
        case .passed: nil
        case .failed(let error): error.description
        }
    }

    /// Why the server must stop, once the check found damage; `nil` while it runs or after it passed.
    var failure: StartupError? {
        if case .failed(let error) = state.withLock({ $0 }) { return error }
        return nil
    }

    /// Blocks until the check has ended: ``failure``.
    func wait() -> StartupError? {
        done.wait()
        done.signal()
        return failure
    }

    /// Calls `body` once, on another thread, when the check fails; at once when it already has.
    func whenFailed(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if case .failed = state { return true }
            failed.withLock { $0.append(body) }
            return false
        }
        if now { body() }
    }

    /// The check's outcome: `nil` when the server may write (sound, or damage served with `serveDamaged`), else why
    /// it must stop. Logs what it found.
    private static func judge(
        _ check: QuickCheck, store: PinDatabase, databasePath: String, serveDamaged: Bool, logger: Logger
    ) -> StartupError? {
        let problems: [String]
        let seconds: TimeInterval
        do {
            (problems, seconds) = try check.wait()
        } catch {
            logger.critical("the database's integrity check failed to run", metadata: ["error": "\(error)"])
            return StartupError(
                code: .damagedDatabase,
                description:
                    "the integrity check of the database \(databasePath) could not run (\(error)); check the disk and the file, or restore a backup"
            )
        }
        logger.info(
            "checked the database",
            metadata: [
                "quickCheckMs": "\(Int(seconds * 1000))", "quickCheckCpuMs": "\(Int(check.cpuSeconds * 1000))",
                "problems": "\(problems.count)",
            ])
        guard !problems.isEmpty else { return nil }
        let summary = problems.prefix(3).joined(separator: "; ")
        guard serveDamaged else {
            let error = StartupError(
                code: .damagedDatabase,
                description:
                    "the database \(databasePath) is damaged: SQLite's quick_check found \(problems.count) problem(s), e.g. \(summary). Restore a backup (`pinset backup --check FILE` tells whether a backup is sound; see the README's restore runbook), or start with --serve-damaged to serve what is intact meanwhile"
            )
            logger.critical(
                "the database is damaged: writes refused, the server stops; restore a backup",
                metadata: ["problems": "\(problems.count)", "first": "\(summary)"])
            return error
        }
        store.health.report(
            StorageProblem(.damagedHosts, "SQLite's quick_check found \(problems.count) problem(s): \(summary)"))
        logger.critical(
            "the database is damaged (--serve-damaged: serving what is intact); restore a backup",
            metadata: ["problems": "\(problems.count)", "first": "\(summary)"])
        return nil
    }
}
