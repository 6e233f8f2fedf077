import Foundation
import Locking
import Logging
import PinSetAdminAPI
import PinSetCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// POSTs a small JSON event to `--alert-webhook` whenever the monitor sees a host change state (or the log a
/// fork: `log-fork`, ``LogForks``), on a serial queue of its own (events stay in order and never hold up the
/// monitor), with retries and a timeout.
package final class AlertWebhook: Sendable {
    /// The event's JSON body.
    package struct Event: Codable, Sendable, Equatable {
        package var event = "host-state-changed"
        package var host: String
        package var state: MonitorState
        package var previousState: MonitorState
        package var warnings: [HostStatus.Warning]
        package var at: String

        /// Creates a `host-state-changed` event (the memberwise initializer, for the server's monitor).
        package init(
            host: String, state: MonitorState, previousState: MonitorState, warnings: [HostStatus.Warning], at: String
        ) {
            self.host = host
            self.state = state
            self.previousState = previousState
            self.warnings = warnings
            self.at = at
        }
    }

    private let url: URL
    private let attempts: Int
    private let timeout: TimeInterval
    private let logger: Logger
    private let queue = DispatchQueue(label: "pinset.alert-webhook")

    /// - Parameters:
    ///   - attempts: tries per event (default 3), 1 s then 2 s apart.
    ///   - timeout: seconds per try (default 5).
    package init(url: URL, attempts: Int = 3, timeout: TimeInterval = 5, logger: Logger) {
        self.url = url
        self.attempts = attempts
        self.timeout = timeout
        self.logger = logger
    }

    /// Queues `event` for delivery.
    package func send(_ event: Event) {
        guard let body = try? AdminJSON.encoder.encode(event) else { return }
        queue.async { self.deliver(body, subject: ["host": "\(event.host)", "state": "\(event.state.rawValue)"]) }
    }

    /// Queues a `log-fork` event (PROTOCOL §7.2) for delivery.
    package func send(fork event: LogForks.Event) {
        guard let body = try? AdminJSON.encoder.encode(event) else { return }
        queue.async { self.deliver(body, subject: ["event": "log-fork", "origin": "\(event.origin)"]) }
    }

    /// Waits until every queued event has been tried (for shutdown and tests), at most `seconds`.
    package func drain(seconds: TimeInterval) {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + seconds)
    }

    private func deliver(_ body: Data, subject: Logger.Metadata) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        for attempt in 1...max(1, attempts) {
            let status = Self.post(request, timeout: timeout)
            if let status, (200..<300).contains(status) { return }
            logger.warning(
                "alert webhook failed",
                metadata: subject.merging(
                    ["attempt": "\(attempt)", "status": "\(status.map(String.init) ?? "none")"]
                ) { $1 })
            if attempt < attempts { Thread.sleep(forTimeInterval: Double(attempt)) }
        }
        logger.error("alert webhook gave up", metadata: subject)
    }

    /// The HTTP status of one POST, or `nil` when there was no answer in time.
    private static func post(_ request: URLRequest, timeout: TimeInterval) -> Int? {
        let status = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { _, response, _ in
            status.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout + 1) == .timedOut {
            task.cancel()
            return nil
        }
        return status.withLock { $0 }
    }
}
