import Foundation
import Locking
import Logging
import PinSetAdminAPI
import PinSetCore

/// Probes every host with an enforcing set, every interval, spread across it, on a thread of its own
/// (probes block; they never run on Swift's cooperative pool or on the read path). Each result is stored
/// (``HostProbeTable``) and a change of state is sent to the alert webhook.
final class HostMonitor: Sendable {
    private let store: PinDatabase
    private let prober: HostProber
    private let interval: TimeInterval
    private let expiryWarning: TimeInterval
    private let webhook: AlertWebhook?
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let stopped = Locked(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(
        store: PinDatabase, configuration: ProbeConfiguration, interval: TimeInterval,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.store = store
        self.prober = HostProber(configuration: configuration)
        self.interval = interval
        self.expiryWarning = configuration.expiryWarning
        self.webhook = configuration.alertWebhook.map { AlertWebhook(url: $0, logger: logger) }
        self.clock = clock
        self.logger = logger
    }

    /// Starts the loop on a new thread.
    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "pinset.monitor"
        thread.start()
    }

    /// Stops the loop, waiting for a probe in flight to end (at most the probe timeout and a second) and for
    /// queued alerts (at most a second).
    func stop() {
        stopped.withLock { $0 = true }
        wake.signal()
        _ = finished.wait(timeout: .now() + prober.configuration.timeout + 1)
        webhook?.drain(seconds: 1)
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Sleeps `seconds`, or less when stopped. Returns `false` when stopped.
    private func pause(_ seconds: TimeInterval) -> Bool {
        _ = wake.wait(timeout: .now() + max(0.01, seconds))
        return !isStopped
    }

    /// One pass over the watched hosts per interval, in name order, `interval / hosts` apart. The names are
    /// listed once per pass (a host added meanwhile is probed in the next pass) and each host's pins are read
    /// just before its probe, so a pass costs one small read per host.
    private func run() {
        while !isStopped {
            let names: [String]
            do {
                names = try store.read { db in try HostProbeTable.watchedNames(db) }
            } catch {
                logger.error("monitor cannot list hosts", metadata: ["error": "\(error)"])
                names = []
            }
            guard !names.isEmpty else {
                guard pause(min(interval, 5)) else { return }
                continue
            }
            let spread = interval / Double(names.count)
            for name in names {
                guard !isStopped else { return }
                do {
                    if let host = try store.read({ db in try HostProbeTable.watched(db, name: name) }) { check(host) }
                } catch {
                    logger.error("monitor cannot read a host", metadata: ["host": "\(name)", "error": "\(error)"])
                }
                guard pause(spread) else { return }
            }
        }
    }

    /// Probes one host, stores the result and alerts on a change of state.
    func check(_ host: HostProbeTable.Watched) {
        let probes = prober.probe(host.name)
        let status = HostStatus.evaluate(
            host: host.name, pins: host.pins, probes: probes, now: clock(), expiryWarning: expiryWarning)
        let previous: MonitorState?
        do {
            previous = try store.serializedWrite { db in
                var previous: MonitorState?
                try db.inTransaction {
                    previous = try HostProbeTable.save(db, status)
                    return .commit
                }
                return previous
            }
        } catch {
            logger.error("monitor cannot store a result", metadata: ["host": "\(host.name)", "error": "\(error)"])
            return
        }
        guard previous != status.state else { return }
        logger.notice(
            "host state changed",
            metadata: [
                "host": "\(host.name)", "state": "\(status.state.rawValue)",
                "previous": "\((previous ?? .unknown).rawValue)",
                "warnings": "\(status.warnings.map { $0.rawValue }.joined(separator: ","))",
            ])
        webhook?.send(
            AlertWebhook.Event(
                host: host.name, state: status.state, previousState: previous ?? .unknown, warnings: status.warnings,
                at: RFC3339.format(status.checkedAt ?? clock())))
    }
}
