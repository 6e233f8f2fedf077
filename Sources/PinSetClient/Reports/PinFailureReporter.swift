import Foundation
import PinSetCore
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts pin failure reports (TrustKit format, PROTOCOL §3) in the background.
///
/// A report goes to the set's `reportUri`, else to ``fallbackReportURI``. An identical report (same destination
/// and same fields but the time) is sent at most once per ``interval`` (default 24 h), like TrustKit. Nothing
/// here blocks the handshake: ``submit(_:port:)`` decides at once and posts from a detached task.
///
/// Wire it from the trust manager: `PinTrustManager(verifier: v) { reporter.submit($0) }`.
public final class PinFailureReporter: Sendable {
    /// What became of one ``submit(_:port:)``.
    public enum Outcome: Sendable, Equatable {
        /// Posted; the server answered this HTTP status.
        case sent(status: Int)
        /// An identical report was sent less than ``PinFailureReporter/interval`` ago.
        case rateLimited
        /// Neither the set nor the reporter names a report URI (or it is not an http(s) URL).
        case noReportURI
        /// The POST failed (transport error); the report is not retried and the rate limit is lifted.
        case failed(String)
    }

    /// Where reports go when the set has no `reportUri`.
    public let fallbackReportURI: URL?
    /// How long an identical report is suppressed. Default 86 400 s.
    public let interval: TimeInterval
    private let session: URLSession
    private let timeout: TimeInterval
    private let clock: @Sendable () -> Date
    private let lastSent: Locked<[String: Date]>

    /// Creates a reporter.
    /// - Parameters:
    ///   - fallbackReportURI: used when a set names no `reportUri`; `nil` drops such reports.
    ///   - interval: suppression window for identical reports, default 24 h.
    ///   - session: the session that posts; default an ephemeral one.
    ///   - timeout: request timeout, default 30 s.
    ///   - clock: time source, default `Date()`.
    public init(
        fallbackReportURI: URL? = nil, interval: TimeInterval = 86_400, session: URLSession? = nil,
        timeout: TimeInterval = 30, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.fallbackReportURI = fallbackReportURI
        self.interval = interval
        self.session = session ?? URLSession(configuration: .ephemeral)
        self.timeout = timeout
        self.clock = clock
        lastSent = Locked([:])
    }

    /// Queues the report of `failure` and returns at once. The returned task (which nobody has to await) ends
    /// with the ``Outcome``.
    /// - Parameters:
    ///   - failure: the failure from ``PinTrustManager``'s `onPinFailure`.
    ///   - port: the port the app connected to, default 443.
    @discardableResult
    public func submit(_ failure: PinFailure, port: Int = 443) -> Task<Outcome, Never> {
        let report = failure.report(port: port)
        guard let destination = failure.reportUri.flatMap(URL.init(string:)) ?? fallbackReportURI,
            let scheme = destination.scheme?.lowercased(), scheme == "https" || scheme == "http"
        else { return Task { .noReportURI } }
        let key = Self.identity(of: report, destination: destination)
        let now = clock()
        let admitted = lastSent.withLock { sent -> Bool in
            if let last = sent[key], now.timeIntervalSince(last) < interval { return false }
            sent[key] = now
            if sent.count > 1024 { sent = sent.filter { now.timeIntervalSince($0.value) < interval } }
            return true
        }
        guard admitted else { return Task { .rateLimited } }
        let body: Data
        do { body = try JSONEncoder().encode(report) } catch { return Task { .failed("could not encode: \(error)") } }
        var request = URLRequest(url: destination, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let session = session
        return Task.detached(priority: .background) { [weak self] in
            do {
                let (_, response) = try await session.data(for: request)
                return .sent(status: (response as? HTTPURLResponse)?.statusCode ?? 0)
            } catch {
                self?.lastSent.withLock { _ = $0.removeValue(forKey: key) }
                return .failed("POST \(destination.absoluteString) failed: \(error)")
            }
        }
    }

    /// The rate-limit key: destination plus every report field but the time.
    static func identity(of report: PinFailureReport, destination: URL) -> String {
        var timeless = report
        timeless.dateTime = ""
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let fields = (try? encoder.encode(timeless)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return destination.absoluteString + " " + fields
    }
}
