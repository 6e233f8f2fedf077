import Foundation
import PinSetAdminAPI
import PinSetStorage

extension PinSetService {
    /// Every host, as ``hosts()``, with the monitor's ``HostSummary/state``; with `limit`, at most that many
    /// hosts named after `after` (one page, read through the name index).
    package func hostsWithState(after: String? = nil, limit: Int? = nil) throws(ServiceError) -> [HostSummary] {
        let (summaries, states) = try store.read { db in
            let summaries = try HostRecords.summaries(db, after: after, limit: limit)
            let states =
                limit == nil
                ? try HostProbeTable.states(db)
                : try HostProbeTable.states(db, from: summaries.first?.host ?? "", through: summaries.last?.host ?? "")
            return (summaries, states)
        }
        return summaries.map { summary in
            var summary = summary
            summary.state = states[summary.host] ?? .unknown
            return summary
        }
    }

    /// The monitor's last result for `host` (state ``MonitorState/unknown`` when not probed yet, or not watched).
    /// 400 for a malformed host, 404 for an unknown one.
    package func status(host: String) throws(ServiceError) -> HostStatus {
        let name = try Self.normalize(host)
        guard let status = try store.read({ db in try HostProbeTable.status(db, name: name) }) else {
            throw Self.unknownHost(name)
        }
        return status
    }
}
