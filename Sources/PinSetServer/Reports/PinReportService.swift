import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore

/// Stores pin failure reports (`POST /reports`, TrustKit's format) and lists them grouped.
///
/// Identical reports share one row with a counter. Rows older than the retention period, and the oldest rows
/// beyond ``ReportConfiguration/maxRows``, are deleted as new reports arrive, so a flood cannot fill the disk.
public final class PinReportService: Sendable {
    let store: PinDatabase
    let service: PinSetService
    let configuration: ReportConfiguration

    /// Creates the service over an open store; `service` answers which pins are current.
    public init(store: PinDatabase, service: PinSetService, configuration: ReportConfiguration = ReportConfiguration())
    {
        self.store = store
        self.service = service
        self.configuration = configuration
    }

    /// The outcome of one stored report.
    public struct Stored: Sendable {
        /// The host the report counts under.
        public let host: String
        /// Whether it repeated an earlier identical report (only its counter went up).
        public let duplicate: Bool
    }

    /// Decodes, checks and stores one report.
    ///
    /// - Throws: 400 when the body is not a TrustKit report: invalid JSON, a missing or mistyped core field, a
    ///   host that is not a DNS name, or a chain whose first certificate is not a PEM certificate.
    public func submit(json: [UInt8], now: Date = Date()) throws(ServiceError) -> Stored {
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
        let leafPin = Base64.encode(SHA256Digest.hash(leaf.spkiDER))
        let matches = currentPinsMatch(chain: report.validatedCertificateChain, host: host)
        let fingerprint = Self.fingerprint(report)
        let seconds = StoredTime.seconds(now)
        let knownPins = Self.json(report.knownPins)
        let chain = Self.json(report.validatedCertificateChain)
        let cutoff = StoredTime.seconds(now.addingTimeInterval(-configuration.retention))
        let maxRows = configuration.maxRows
        let duplicate = try store.serializedWrite { db in
            try db.inTransaction {
                try db.execute(
                    sql: """
                        INSERT INTO pinReport (fingerprint, host, notedHost, leafPin, matchesCurrentPin, enforce,
                            knownPins, chain, count, firstSeen, lastSeen)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                        ON CONFLICT(fingerprint) DO UPDATE SET count = count + 1, lastSeen = excluded.lastSeen,
                            matchesCurrentPin = excluded.matchesCurrentPin
                        """,
                    arguments: [
                        Data(fingerprint), host, report.hostname.lowercased(), leafPin, matches, report.enforcePinning,
                        knownPins, chain, seconds, seconds,
                    ])
                try db.execute(sql: "DELETE FROM pinReport WHERE lastSeen < ?", arguments: [cutoff])
                try db.execute(
                    sql: """
                        DELETE FROM pinReport WHERE id IN (
                            SELECT id FROM pinReport ORDER BY lastSeen DESC, id DESC LIMIT -1 OFFSET ?)
                        """,
                    arguments: [maxRows])
                try Self.countDay(db, host: host, seconds: seconds, cutoff: cutoff, maxRows: maxRows)
                return .commit
            }
            return try Int.fetchOne(
                db, sql: "SELECT count FROM pinReport WHERE fingerprint = ?", arguments: [Data(fingerprint)]) ?? 1 > 1
        }
        return Stored(host: host, duplicate: duplicate)
    }

    /// Reports grouped by host and leaf pin, latest first; `host` filters on the pinned or the connected host.
    public func groups(host: String?, since: Date?) throws(ServiceError) -> [ReportGroup] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let host {
            conditions.append("(host = ? OR notedHost = ?)")
            _ = arguments.append(contentsOf: [host, host])
        }
        if let since {
            conditions.append("lastSeen >= ?")
            _ = arguments.append(contentsOf: [StoredTime.seconds(since)])
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // With MAX(lastSeen), SQLite takes the bare columns from the latest row of each group.
        let sql = """
            SELECT host, leafPin, SUM(count) AS total, MIN(firstSeen) AS first, MAX(lastSeen) AS last,
                matchesCurrentPin, knownPins, chain
            FROM pinReport \(filter) GROUP BY host, leafPin ORDER BY last DESC LIMIT 1000
            """
        return try store.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                ReportGroup(
                    host: row["host"], leafPin: row["leafPin"], count: row["total"],
                    firstSeen: StoredTime.date(row["first"]), lastSeen: StoredTime.date(row["last"]),
                    matchesCurrentPin: row["matchesCurrentPin"], knownPins: Self.strings(row["knownPins"]),
                    chain: Self.strings(row["chain"]))
            }
        }
    }

    /// Whether a certificate of `chain` matches an unexpired pin of the set governing `host` now.
    private func currentPinsMatch(chain: [String], host: String) -> Bool {
        var pins: [Pin] = []
        for (index, name) in HostName.lookupChain(host).enumerated() {
            guard let detail = try? service.detail(host: String(name)) else { continue }
            if index == 0 || detail.includeSubdomains {
                pins = detail.pins
                break
            }
        }
        let now = Date()
        let active = pins.filter { $0.isActive(at: now) }
        guard !active.isEmpty else { return false }
        for pem in chain {
            guard let certificate = try? CertificateParser.parse(Array(pem.utf8)).first else { continue }
            let spki = Base64.encode(SHA256Digest.hash(certificate.spkiDER))
            let whole = Base64.encode(SHA256Digest.hash(certificate.der))
            if active.contains(where: { $0.sha256 == ($0.type == .spki ? spki : whole) }) { return true }
        }
        return false
    }

    private static func fingerprint(_ report: PinFailureReport) -> [UInt8] {
        let parts: [String] =
            [
                report.hostname.lowercased(), String(report.port), report.notedHostname.lowercased(),
                String(report.includeSubdomains), String(report.enforcePinning), String(report.validationResult),
            ] + report.validatedCertificateChain + ["|"] + report.knownPins
        return SHA256Digest.hash(Array(parts.joined(separator: "\n").utf8))
    }

    private static func json(_ strings: [String]) -> String {
        (try? JSONEncoder().encode(strings)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    private static func strings(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    private static func describe(_ error: any Error) -> String {
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
