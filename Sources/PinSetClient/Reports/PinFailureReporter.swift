import Foundation
import Locking
import PinSetCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts pin failure reports (TrustKit format, PROTOCOL §3) in the background.
///
/// A report goes to the set's `reportUri`, else to the fallback (the reporter's ``fallbackReportURI``, else the
/// `fallbackReportURI` of ``submit(_:port:fallbackReportURI:)``). When the `reportUri` fails (transport error or a status other than 2xx), the
/// report goes to the fallback instead: ``PinSetUpdater`` passes the pin server's `/reports`, so a report gets
/// through even when the report endpoint is itself pinned and failing (TrustKit-Android issue 72).
///
/// The reporter's own requests never go through pin evaluation: it posts with a session of its own that has no
/// pinning delegate (standard validation only), and reports carry no secrets (the served chain and the pins).
/// An identical report (same destination and same fields but the time) is sent at most once per ``interval``
/// (default 24 h), like TrustKit. Nothing here blocks the handshake: ``submit(_:port:fallbackReportURI:)``
/// decides at once and posts from a detached task.
///
/// With a ``PinSetUpdater``, pass the reporter to it: failures are then classified before they are reported.
public final class PinFailureReporter: Sendable {
    /// What became of one ``submit(_:port:fallbackReportURI:)``.
    public enum Outcome: Sendable, Equatable {
        /// Posted; the server answered this HTTP status.
        case sent(status: Int)
        /// The set's `reportUri` failed (`reason`); the fallback took the report and answered `status`.
        case sentToFallback(status: Int, reason: String)
        /// An identical report was sent less than ``PinFailureReporter/interval`` ago.
        case rateLimited
        /// Neither the set nor the reporter names a report URI (or it is not an http(s) URL).
        case noReportURI
        /// The POST failed (transport error) everywhere it was tried; the report is not retried and the rate limit
        /// is lifted.
        case failed(String)
    }

    /// Where reports go when the set has no `reportUri`, or when it fails.
    public let fallbackReportURI: URL?
    /// How long an identical report is suppressed. Default 86 400 s.
    public let interval: TimeInterval
    private let owner: SessionOwner
    private let timeout: TimeInterval
    private let clock: @Sendable () -> Date
    private let lastSent: Locked<[String: Date]>

    /// Creates a reporter.
    /// - Parameters:
    ///   - fallbackReportURI: used when a set names no `reportUri` or its `reportUri` fails; `nil` drops such
    ///     reports (unless ``submit(_:port:fallbackReportURI:)`` names one).
    ///   - interval: suppression window for identical reports, default 24 h.
    ///   - timeout: request timeout, default 30 s.
    ///   - clock: time source, default `Date()`.
    public init(
        fallbackReportURI: URL? = nil, interval: TimeInterval = 86_400, timeout: TimeInterval = 30,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.fallbackReportURI = fallbackReportURI
        self.interval = interval
        // Its own session, with no delegate: never the app's pinned one.
        owner = SessionOwner(URLSession(configuration: .ephemeral))
        self.timeout = timeout
        self.clock = clock
        lastSent = Locked([:])
    }

    /// Queues the report of `failure` and returns at once. The returned task (which nobody has to await) ends
    /// with the ``Outcome``.
    /// - Parameters:
    ///   - failure: the failure from ``PinTrustManager``'s `onPinFailure`, or classified by ``PinSetUpdater``.
    ///   - port: the port the app connected to, default 443.
    ///   - fallbackReportURI: where the report goes if the set has no `reportUri` or it fails, when the reporter
    ///     has no ``fallbackReportURI`` of its own; ``PinSetUpdater`` passes the pin server's `/reports`.
    @discardableResult
    public func submit(_ failure: PinFailure, port: Int = 443, fallbackReportURI: URL? = nil) -> Task<Outcome, Never> {
        let report = failure.report(port: port)
        let fallback = Self.httpURL(self.fallbackReportURI) ?? Self.httpURL(fallbackReportURI)
        guard let destination = Self.httpURL(failure.reportUri.flatMap(URL.init(string:))) ?? fallback else {
            return Task { .noReportURI }
        }
        let body: Data
        do { body = try JSONEncoder().encode(report) } catch { return Task { .failed("could not encode: \(error)") } }
        return send(
            body, identity: Self.identity(of: report, destination: destination), to: destination, fallback: fallback)
    }

    /// Posts `body` to `destination` (then to `fallback` if that fails) from a detached task, unless a body of the
    /// same `identity` was sent less than ``interval`` ago.
    func send(_ body: Data, identity key: String, to destination: URL, fallback: URL?) -> Task<Outcome, Never> {
        let now = clock()
        let admitted = lastSent.withLock { sent -> Bool in
            if let last = sent[key], now.timeIntervalSince(last) < interval { return false }
            sent[key] = now
            if sent.count > 1024 { sent = sent.filter { now.timeIntervalSince($0.value) < interval } }
            return true
        }
        guard admitted else { return Task { .rateLimited } }
        let session = owner.session
        let timeout = timeout
        let retry = fallback.flatMap { $0 == destination ? nil : $0 }
        return Task.detached(priority: .background) { [weak self] in
            let first = await Self.post(body, to: destination, session: session, timeout: timeout)
            if case .success(let status) = first, (200..<300).contains(status) { return .sent(status: status) }
            let reason: String
            switch first {
            case .success(let status): reason = "POST \(destination.absoluteString) answered \(status)"
            case .failure(let error): reason = error.description
            }
            if let retry {
                switch await Self.post(body, to: retry, session: session, timeout: timeout) {
                case .success(let status): return .sentToFallback(status: status, reason: reason)
                case .failure(let error):
                    self?.lastSent.withLock { _ = $0.removeValue(forKey: key) }
                    return .failed(reason + "; fallback: " + error.description)
                }
            }
            if case .success(let status) = first { return .sent(status: status) }
            self?.lastSent.withLock { _ = $0.removeValue(forKey: key) }
            return .failed(reason)
        }
    }

    private struct PostError: Error, CustomStringConvertible {
        let description: String
    }

    private static func post(_ body: Data, to url: URL, session: URLSession, timeout: TimeInterval) async -> Result<
        Int, PostError
    > {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        do {
            let (_, response) = try await session.data(for: request)
            return .success((response as? HTTPURLResponse)?.statusCode ?? 0)
        } catch {
            return .failure(PostError(description: "POST \(url.absoluteString) failed: \(error)"))
        }
    }

    static func httpURL(_ url: URL?) -> URL? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return nil }
        return url
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
