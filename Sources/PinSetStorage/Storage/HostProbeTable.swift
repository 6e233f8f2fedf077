import Foundation
package import GRDB
import PinSetAdminAPI
import PinSetCore

/// SQL for the monitor's last probe of each host (table `hostProbe`, one row per host).
package enum HostProbeTable {
    /// The name of every host with an enforcing, non-retired set, in name order.
    package static func watchedNames(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM host WHERE enforce = 1 AND retired = 0 ORDER BY name")
    }

    /// The pins of `name` if the monitor watches it (an enforcing set, not retired); `nil` when it is gone,
    /// retired or report-only.
    package static func watchedPins(_ db: Database, name: String) throws -> [Pin]? {
        guard
            let id = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM host WHERE name = ? AND enforce = 1 AND retired = 0"),
                arguments: [name])
        else { return nil }
        return try HostRecords.pins(db, hostId: id)
    }

    /// Stores `status` as the last result of its host (nothing when the host no longer exists). Returns the
    /// state stored before, `nil` when there was none.
    @discardableResult
    package static func save(_ db: Database, _ status: HostStatus) throws -> MonitorState? {
        // Cached statements: the monitor stores one result per probe, 10,000 and more a pass.
        guard
            let hostId = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM host WHERE name = ?"), arguments: [status.host])
        else { return nil }
        let previous = try String.fetchOne(
            db.cachedStatement(sql: "SELECT state FROM hostProbe WHERE hostId = ?"), arguments: [hostId])
        let addresses = String(decoding: try AdminJSON.encoder.encode(status.addresses), as: UTF8.self)
        let warnings = String(decoding: try AdminJSON.encoder.encode(status.warnings), as: UTF8.self)
        try db.cachedStatement(
            sql: """
                INSERT INTO hostProbe (hostId, at, state, pinsMatch, leafNotAfter, warnings, addresses)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(hostId) DO UPDATE SET at = excluded.at, state = excluded.state,
                    pinsMatch = excluded.pinsMatch, leafNotAfter = excluded.leafNotAfter,
                    warnings = excluded.warnings, addresses = excluded.addresses
                """
        ).execute(
            arguments: [
                hostId, StoredTime.seconds(status.checkedAt ?? Date()), status.state.rawValue,
                status.pinsMatch ?? false,
                status.leafNotAfter.map(StoredTime.seconds), warnings, addresses,
            ])
        return previous.flatMap(MonitorState.init(rawValue:))
    }

    /// The last status of `name`: `nil` for an unknown host, state ``MonitorState/unknown`` when never probed.
    package static func status(_ db: Database, name: String) throws -> HostStatus? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT h.name, h.enforce, h.retired, p.at, p.state, p.pinsMatch, p.leafNotAfter, p.warnings, p.addresses
                    FROM host h LEFT JOIN hostProbe p ON p.hostId = h.id WHERE h.name = ?
                    """, arguments: [name])
        else { return nil }
        return status(row)
    }

    /// The state of every host that has a probe result, by name (hosts missing are ``MonitorState/unknown``).
    package static func states(_ db: Database, from first: String = "", through last: String? = nil) throws -> [String:
        MonitorState]
    {
        var states = [String: MonitorState]()
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT h.name, p.state FROM hostProbe p JOIN host h ON h.id = p.hostId
                WHERE h.enforce = 1 AND h.retired = 0 AND h.name >= ? AND (? IS NULL OR h.name <= ?)
                """, arguments: [first, last, last])
        {
            states[row["name"]] = MonitorState(rawValue: row["state"]) ?? .unknown
        }
        return states
    }

    /// `(host, pinsMatch, leafNotAfter)` of every probed host still in the database with an enforcing set.
    package static func gauges(_ db: Database) throws -> [(host: String, match: Bool, leafNotAfter: Int64?)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT h.name, p.pinsMatch, p.leafNotAfter FROM hostProbe p JOIN host h ON h.id = p.hostId
                WHERE h.enforce = 1 AND h.retired = 0 ORDER BY h.name
                """
        ).map { row in (row["name"], row["pinsMatch"], row["leafNotAfter"]) }
    }

    private static func status(_ row: Row) -> HostStatus {
        let name: String = row["name"]
        let monitored = (row["enforce"] as Bool) && !(row["retired"] as Bool)
        guard monitored, let at = row["at"] as Int64?, let state = MonitorState(rawValue: row["state"] ?? "") else {
            return HostStatus(host: name, state: .unknown)
        }
        let decoder = AdminJSON.decoder
        let warnings =
            (try? decoder.decode([HostStatus.Warning].self, from: Data((row["warnings"] as String).utf8))) ?? []
        let addresses = (try? decoder.decode([AddressProbe].self, from: Data((row["addresses"] as String).utf8))) ?? []
        return HostStatus(
            host: name, state: state, checkedAt: StoredTime.date(at), pinsMatch: row["pinsMatch"],
            leafNotAfter: (row["leafNotAfter"] as Int64?).map(StoredTime.date), warnings: warnings,
            addresses: addresses)
    }
}
