import Foundation
import TransparencyLog

extension PinFailureReporter {
    /// Queues the report of a transparency log fork (PROTOCOL §7.4; the ``LogForkReport`` JSON body) and returns
    /// at once. It goes where pin failure reports go: `reportUri` (the `reportUri` of the set in force for the
    /// document's host; `nil` for a trust document), else the reporter's ``fallbackReportURI``, else
    /// `fallbackReportURI`; a failing `reportUri` falls back the same way. The same fork is sent once per
    /// ``interval``.
    /// - Parameters:
    ///   - report: the fork, with both signed notes.
    ///   - reportUri: the `reportUri` of the set in force, if any.
    ///   - fallbackReportURI: used when the reporter has no ``fallbackReportURI``; ``PinSetUpdater`` passes the pin
    ///     server's `/reports`.
    @discardableResult
    public func submit(_ report: LogForkReport, reportUri: String?, fallbackReportURI: URL? = nil) -> Task<
        Outcome, Never
    > {
        let fallback = Self.httpURL(self.fallbackReportURI) ?? Self.httpURL(fallbackReportURI)
        guard let destination = Self.httpURL(reportUri.flatMap(URL.init(string:))) ?? fallback else {
            return Task { .noReportURI }
        }
        var timeless = report
        timeless.dateTime = ""
        let identity = destination.absoluteString + " " + String(decoding: timeless.encodedJSON(), as: UTF8.self)
        return send(Data(report.encodedJSON()), identity: identity, to: destination, fallback: fallback)
    }
}
