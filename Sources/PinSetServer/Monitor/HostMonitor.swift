import Foundation
import Locking
import Logging
import PinSetAdminAPI
import PinSetCore
import PinSetLogServer
import PinSetProbe
import PinSetStorage

/// Probes every host with an enforcing set once per interval, on threads of its own (probes block; they never
/// run on Swift's cooperative pool or on the read path). Starts are spread across 90% of the interval and at most
/// ``ProbeConfiguration/monitorConcurrency`` hosts are probed at once, from a pool of handshakes apart from the
/// pre-flight's, so a pass over 10,000 hosts ends within the interval and never delays a write's probe. Each result
/// is stored (``HostProbeTable``), a change of state is sent to the alert webhook, and each pass's duration is
/// reported (``Pass``, `pinset_monitor_pass_seconds`).
final class HostMonitor: Sendable {
    /// One full pass over the watched hosts.
    struct Pass: Sendable, Equatable {
        /// Hosts probed.
        let hosts: Int
        /// From the first probe's start to the last probe's end.
        let seconds: Double
        /// When the pass ended.
        let finishedAt: Date
    }

    private let store: PinDatabase
    private let prober: HostProber
    private let interval: TimeInterval
    private let expiryWarning: TimeInterval
    private let webhook: AlertWebhook?
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let onPass: @Sendable (Pass) -> Void
    /// The thread of the loop, from ``start()`` on.
    private let worker = Locked<PeriodicWorker?>(nil)
    /// Free places for hosts being probed (``ProbeConfiguration/monitorConcurrency``).
    private let places: DispatchSemaphore
    private let workers = DispatchQueue(label: "pinset.monitor.probe", attributes: .concurrent)
    private let lastPassValue = Locked<Pass?>(nil)

    init(
        store: PinDatabase, configuration: ProbeConfiguration, interval: TimeInterval,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger,
        onPass: @escaping @Sendable (Pass) -> Void = { _ in }
    ) {
        self.store = store
        self.prober = HostProber(configuration: configuration, handshakes: configuration.monitorConcurrency)
        self.interval = interval
        self.expiryWarning = configuration.expiryWarning
        self.webhook = configuration.alertWebhook.map { AlertWebhook(url: $0, logger: logger) }
        self.clock = clock
        self.logger = logger
        self.onPass = onPass
        self.places = DispatchSemaphore(value: configuration.monitorConcurrency)
    }

    /// The last full pass, `nil` before the first ends.
    var lastPass: Pass? { lastPassValue.withLock { $0 } }

    /// Starts the loop on a thread of its own (a ``PeriodicWorker``).
    func start() {
        worker.withLock { worker in
            guard worker == nil else { return }
            worker = PeriodicWorker(name: "pinset.monitor") { [self] worker in run(worker) }
        }
    }

    /// Stops the loop, waiting for probes in flight to end (at most the probe timeout and two seconds) and for
    /// queued alerts (at most a second).
    func stop() {
        worker.withLock { $0 }?.stop(waitingAtMost: prober.configuration.timeout + 2)
        webhook?.drain(seconds: 1)
    }

    /// One pass, in name order; returns the pause before the next (the rest of the interval). The names are
    /// listed once per pass (a host added meanwhile is probed in the next pass) and each host's pins are read just
    /// before its probe.
    private func run(_ worker: PeriodicWorker) -> TimeInterval {
        let names: [String]
        do {
            names = try store.read { db in try HostProbeTable.watchedNames(db) }
        } catch {
            logger.error("monitor cannot list hosts", metadata: ["error": "\(error)"])
            names = []
        }
        guard !names.isEmpty else { return min(interval, 5) }
        let start = Date()
        guard pass(names, start: start, worker) else { return 0 }
        let seconds = Date().timeIntervalSince(start)
        let summary = Pass(hosts: names.count, seconds: seconds, finishedAt: clock())
        lastPassValue.withLock { $0 = summary }
        onPass(summary)
        if seconds > interval {
            logger.warning(
                "monitor pass took longer than its interval: raise --monitor-interval or --monitor-concurrency",
                metadata: ["hosts": "\(names.count)", "seconds": "\(Int(seconds))", "interval": "\(Int(interval))"])
        }
        return interval - Date().timeIntervalSince(start)
    }

    /// Probes `names`, host `i` starting no earlier than `start + i × 0.9 × interval / count`, at most
    /// `monitorConcurrency` at once; returns when every probe has ended, `false` when stopped.
    private func pass(_ names: [String], start: Date, _ worker: PeriodicWorker) -> Bool {
        let spread = interval * 0.9 / Double(names.count)
        let group = DispatchGroup()
        defer { _ = group.wait(timeout: .now() + prober.configuration.timeout + 1) }
        for (index, name) in names.enumerated() {
            let due = Double(index) * spread - Date().timeIntervalSince(start)
            if due > 0 { guard worker.pause(due) else { return false } }
            while places.wait(timeout: .now() + 0.25) == .timedOut {
                guard !worker.isStopped else { return false }
            }
            guard !worker.isStopped else {
                places.signal()
                return false
            }
            group.enter()
            workers.async { [self] in
                defer {
                    places.signal()
                    group.leave()
                }
                check(name)
            }
        }
        // Bounded: each probe ends within its resolution deadline and the handshake timeout.
        _ = group.wait(timeout: .now() + 2 * prober.configuration.timeout + 30)
        return !worker.isStopped
    }

    /// Probes one host, then, in one transaction, judges what it served against the pins in force at that
    /// moment and stores the result (nothing when the host was meanwhile removed, retired or made report-only);
    /// alerts on a change of state.
    func check(_ name: String) {
        let probes = prober.probe(name)
        let stored: (status: HostStatus, previous: MonitorState?)?
        do {
            // Without an fsync: a result nobody waits for, 10,000 and more a pass (see PinDatabase.withoutSync).
            stored = try store.serializedWrite { db in
                var stored: (status: HostStatus, previous: MonitorState?)?
                try PinDatabase.withoutSync(db) { db in
                    guard let pins = try HostProbeTable.watchedPins(db, name: name) else { return }
                    let status = HostStatus.evaluate(
                        host: name, pins: pins, probes: probes, now: clock(), expiryWarning: expiryWarning)
                    stored = (status, try HostProbeTable.save(db, status))
                }
                return stored
            }
        } catch {
            logger.error("monitor cannot store a result", metadata: ["host": "\(name)", "error": "\(error)"])
            return
        }
        guard let (status, previous) = stored, previous != status.state else { return }
        logger.notice(
            "host state changed",
            metadata: [
                "host": "\(name)", "state": "\(status.state.rawValue)",
                "previous": "\((previous ?? .unknown).rawValue)",
                "warnings": "\(status.warnings.map { $0.rawValue }.joined(separator: ","))",
            ])
        webhook?.send(
            AlertWebhook.Event(
                host: name, state: status.state, previousState: previous ?? .unknown, warnings: status.warnings,
                at: RFC3339.format(status.checkedAt ?? clock())))
    }
}
