import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import PinSetLogServer
import PinSetStorage

/// Stores pin failure reports (`POST /reports`, TrustKit's format) and lists them grouped.
///
/// Identical reports share one row with a counter. Rows older than the retention period, and rows beyond each
/// class's cap (``ReportConfiguration/rowsPerClass``), are deleted as new reports arrive, so a flood cannot fill
/// the disk; reports for hosts with a set are kept apart from the rest, so a flood cannot push them out.
package final class PinReportService: Sendable {
    let store: PinDatabase
    let service: PinSetService
    let configuration: ReportConfiguration
    /// The log's forks: a fork report is stored only if its notes verify under the log key (`nil`: no log).
    let forks: LogForks?
    /// Reports naming hosts without a set, from every address together (``ReportConfiguration/otherHostsPerMinute``),
    /// charged by ``admit(json:isPinned:)``.
    private let otherHosts: ReportRateLimiter
    /// Commits pin failure reports in groups.
    private let writer: ReportWriter

    /// Creates the service over an open store; `service` answers which pins are current. Without a log, fork
    /// reports are refused (nothing to verify their notes against).
    package convenience init(
        store: PinDatabase, service: PinSetService, configuration: ReportConfiguration = ReportConfiguration()
    ) {
        self.init(store: store, service: service, configuration: configuration, forks: nil)
    }

    init(store: PinDatabase, service: PinSetService, configuration: ReportConfiguration, forks: LogForks?) {
        self.store = store
        self.service = service
        self.configuration = configuration
        self.forks = forks
        otherHosts = ReportRateLimiter(perMinute: configuration.otherHostsPerMinute)
        writer = ReportWriter(store: store, maxRows: configuration.rowsPerClass)
    }

    /// The outcome of one stored report.
    package struct Stored: Sendable {
        /// The host the report counts under.
        package let host: String
        /// Whether it repeated an earlier identical report (only its counter went up).
        package let duplicate: Bool
    }

    /// A report that passed ``check(json:now:)``: a pin failure report ready to store, or a log-fork report,
    /// already stored.
    package struct Checked: Sendable {
        let entry: ReportWriter.Entry?
        let stored: Stored
    }

    /// Admits, decodes, checks and stores one report (``admit(json:isPinned:)``, ``check(json:now:)``, then
    /// ``store(_:)``).
    package func submit(json: [UInt8], now: Date = Date()) throws(ServiceError) -> Stored {
        try admit(json: json) { host in (try? service.detail(host: host)) != nil }
        return try store(check(json: json, now: now))
    }

    /// Charges a report to its budget before it is decoded: a report naming a host without a set (or a host that
    /// cannot be read without decoding, see ``ReportPeek``) takes one of the reports all addresses share a minute
    /// (``ReportConfiguration/otherHostsPerMinute``), whether or not it then passes ``check(json:now:)``. Reports
    /// for hosts with a set, and pinset's own reports, are not charged. Cheap enough for the thread that answers
    /// `GET /pins`: a flood of junk for invented names is refused here, before it costs a decoder (issue 40).
    ///
    /// - Throws: 429 with `Retry-After` when the budget is spent.
    package func admit(json: [UInt8], isPinned: (String) -> Bool) throws(ServiceError) {
        let peek = ReportPeek(json)
        if peek.namesAKind { return }
        if let name = peek.host, let host = try? HostName.normalize(name), isPinned(host) { return }
        if let wait = otherHosts.take("") {
            var error = ServiceError(
                .tooManyRequests,
                "too many reports for hosts this server has no pin set for; retry after \(wait) seconds")
            error.retryAfter = wait
            throw error
        }
    }

    /// Stores a checked report with the others that arrive meanwhile (one transaction) and returns once it is
    /// committed. It may wait for a commit: call it off libmicrohttpd's threads.
    ///
    /// - Throws: 429 with `Retry-After` when too many reports already wait to be stored; a storage error.
    package func store(_ checked: Checked) throws(ServiceError) -> Stored {
        guard let entry = checked.entry else { return checked.stored }
        return Stored(host: checked.stored.host, duplicate: try writer.store(entry))
    }

    /// Decodes and checks one report, without storing it: a TrustKit pin failure report, or a client's
    /// transparency-log fork report (`"pinset-report":"log-fork"`, see ``submitLogFork(json:now:)``), which is
    /// stored here (they are rare, and only stored when their notes verify).
    ///
    /// - Throws: 400 when the body is not a TrustKit report: invalid JSON, a missing or mistyped core field, a
    ///   host that is not a DNS name, or a chain whose first certificate is not a PEM certificate; or when it is
    ///   a pinset report of another kind, or a malformed log-fork report; 413 for a report over
    ///   ``ReportConfiguration/maxReportBytes``. (Reports for hosts without a set are limited before, by
    ///   ``admit(json:isPinned:)``.)
    package func check(json: [UInt8], now: Date = Date()) throws(ServiceError) -> Checked {
        if let name = JSONRepeatedMembers.first(in: json) {
            throw ServiceError(
                .badRequest, "the member \"\(name.prefix(40))\" appears twice in one object; send each member once")
        }
        if Self.mayNameAKind(json), let kind = try? JSONDecoder().decode(ReportKind.self, from: Data(json)).kind {
            guard kind == "log-fork" else {
                throw ServiceError(
                    .badRequest, "unknown pinset-report \"\(kind.prefix(40))\": this server takes log-fork")
            }
            return Checked(entry: nil, stored: try submitLogFork(json: json, now: now))
        }
        let report: PinFailureReport
        do {
            report = try JSONDecoder().decode(PinFailureReport.self, from: Data(json))
        } catch {
            throw ServiceError(.badRequest, "the body is not a TrustKit pin failure report: \(Self.describe(error))")
        }
        let host: String
        do {
            host = try HostName.normalize(report.notedHostname.isEmpty ? report.hostname : report.notedHostname)
        } catch {
            throw ServiceError(.badRequest, "noted-hostname is not a DNS host name: \(error.description)")
        }
        guard report.validatedCertificateChain.count <= 16, report.knownPins.count <= 128 else {
            throw ServiceError(.badRequest, "a report holds at most 16 certificates and 128 known pins")
        }
        guard let leafPEM = report.validatedCertificateChain.first,
            let leaf = try? CertificateParser.parse(Array(leafPEM.utf8)).first
        else {
            throw ServiceError(.badRequest, "validated-certificate-chain must start with the leaf certificate in PEM")
        }
        let bytes =
            report.hostname.utf8.count + report.validatedCertificateChain.reduce(0) { $0 + $1.utf8.count }
            + report.knownPins.reduce(0) { $0 + $1.utf8.count }
        guard bytes <= configuration.maxReportBytes else {
            throw ServiceError(
                .payloadTooLarge,
                "the report's host name, chain and known pins are \(bytes) bytes; at most \(configuration.maxReportBytes) are stored"
            )
        }
        let leafPin = Base64.encode(SHA256Digest.hash(leaf.spkiDER))
        let (pinned, matches) = currentPinsMatch(chain: report.validatedCertificateChain, host: host)
        let stored = ReportTable.NewReport(
            fingerprint: Self.fingerprint(report), host: host, notedHost: report.hostname.lowercased(),
            leafPin: leafPin, matchesCurrentPin: matches, enforce: report.enforcePinning, knownPins: report.knownPins,
            chain: report.validatedCertificateChain, pinned: pinned)
        let entry = ReportWriter.Entry(
            row: stored, seconds: StoredTime.seconds(now),
            cutoff: StoredTime.seconds(now.addingTimeInterval(-configuration.retention)))
        return Checked(entry: entry, stored: Stored(host: host, duplicate: false))
    }

    /// Reports grouped by host and leaf pin, latest first; `host` filters on the pinned or the connected host.
    package func groups(host: String?, since: Date?) throws(ServiceError) -> [ReportGroup] {
        try store.read { db in try ReportTable.groups(db, host: host, since: since) }
    }

    /// Whether the server has a set for `host` itself (the report is then a pinned host's), and whether a
    /// certificate of `chain` matches an unexpired pin of the set governing `host` now.
    private func currentPinsMatch(chain: [String], host: String) -> (pinned: Bool, matches: Bool) {
        var pins: [Pin] = []
        var pinned = false
        for (index, name) in HostName.lookupChain(host).enumerated() {
            guard let detail = try? service.detail(host: String(name)) else { continue }
            if index == 0 { pinned = true }
            if index == 0 || detail.includeSubdomains {
                pins = detail.pins
                break
            }
        }
        let now = Date()
        let active = pins.filter { $0.isActive(at: now) }
        guard !active.isEmpty else { return (pinned, false) }
        for pem in chain {
            guard let certificate = try? CertificateParser.parse(Array(pem.utf8)).first else { continue }
            let spki = Base64.encode(SHA256Digest.hash(certificate.spkiDER))
            let whole = Base64.encode(SHA256Digest.hash(certificate.der))
            if active.contains(where: { $0.sha256 == ($0.type == .spki ? spki : whole) }) { return (pinned, true) }
        }
        return (pinned, false)
    }

    private static func fingerprint(_ report: PinFailureReport) -> [UInt8] {
        let parts: [String] =
            [
                report.hostname.lowercased(), String(report.port), report.notedHostname.lowercased(),
                String(report.includeSubdomains), String(report.enforcePinning), String(report.validationResult),
            ] + report.validatedCertificateChain + ["|"] + report.knownPins
        return SHA256Digest.hash(Array(parts.joined(separator: "\n").utf8))
    }

    /// Whether `json` may hold a `pinset-report` member: it names it, or it holds a `\u` escape (which could spell
    /// it). A TrustKit report does neither, and is then decoded once, not twice (a junk flood's CPU, issue 40's B5r).
    static func mayNameAKind(_ json: [UInt8]) -> Bool {
        let name = Array("pinset-report".utf8)
        for index in json.indices {
            if json[index] == UInt8(ascii: "\\"), json.index(after: index) < json.endIndex,
                json[index + 1] == UInt8(ascii: "u")
            {
                return true
            }
            if json[index] == name[0], json[index...].starts(with: name) { return true }
        }
        return false
    }

    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "missing field \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "field \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "invalid JSON"
        case .dataCorrupted(let context):
            "field \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" is invalid"
        default: "invalid JSON"
        }
    }
}
