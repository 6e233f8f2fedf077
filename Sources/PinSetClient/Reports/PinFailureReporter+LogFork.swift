import Foundation
import TransparencyLog

extension PinFailureReporter {
    /// Queues the report of a transparency log fork (PROTOCOL §3 and §7.4; the ``LogForkReport`` JSON body) and
    /// returns at once. It goes to the report address the application configured (the reporter's
    /// ``fallbackReportURI``) and to `pinServerReports`, the configured pin server's `/reports`: never to a
    /// `reportUri` taken from a document, which the party that forked the log may have written. The same fork is
    /// sent to each once per ``interval``.
    /// - Parameters:
    ///   - report: the fork, with both signed notes.
    ///   - pinServerReports: the configured pin server's `/reports` (``PinSetUpdater`` passes it); `nil` for none.
    /// - Returns: a task ending with the outcome at the application's address, else at the pin server's
    ///   (``Outcome/noReportURI`` when there is neither).
    @discardableResult
    public func submit(_ report: LogForkReport, pinServerReports: URL?) -> Task<Outcome, Never> {
        var destinations: [URL] = []
        for url in [Self.httpURL(fallbackReportURI), Self.httpURL(pinServerReports)] {
            if let url, !destinations.contains(url) { destinations.append(url) }
        }
        guard !destinations.isEmpty else { return Task { .noReportURI } }
        var timeless = report
        timeless.dateTime = ""
        let json = String(decoding: timeless.encodedJSON(), as: UTF8.self)
        let tasks = destinations.map { destination in
            send(
                Data(report.encodedJSON()), identity: destination.absoluteString + " " + json, to: destination,
                fallback: nil)
        }
        return Task {
            var outcomes: [Outcome] = []
            for task in tasks { outcomes.append(await task.value) }
            return outcomes[0]
        }
    }
}
