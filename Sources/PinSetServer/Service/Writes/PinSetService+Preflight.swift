import Foundation
import PinSetAdminAPI
import PinSetCore
import PinSetProbe
import PinSetStorage

/// A write's plan as the pre-flight check passed it.
struct CheckedPlan: Sendable {
    /// The host's version the plan was made from (`nil`: the host did not exist).
    let version: Int?
    /// The plan, its safety rules checked.
    let planned: PinSetService.PlannedSet
    /// What the probe found.
    let report: PreflightReport
}

extension PinSetService {
    /// The pre-flight check of a write: the plan's pins against what each address serves. Runs on a read of
    /// the current state, outside the writer. Throws 422 `would-lock-out` when an enforcing set matches no
    /// chain an address serves, and 422 `preflight-unreachable` under ``PreflightMode/require`` when the host
    /// could not be probed; `"force": true` overrides both. Report-only sets are never refused.
    ///
    /// - Returns: the checked plan with the version it was made from (the transaction uses it as it is while
    ///   the host is at that version) and the report; `nil` when the host was probed only for capture.
    func preflightCheck(
        _ probe: PreflightProbe, command: WriteCommand, plan: (HostState?) throws(ServiceError) -> PlannedSet
    ) throws(ServiceError) -> CheckedPlan? {
        guard probe.checks else { return nil }
        let host = command.host
        let now = StoredTime.truncate(clock())
        let current = try store.read { db in try HostRecords.fetch(db, name: host) }
        if command.mustExist, current == nil { throw Self.unknownHost(host) }
        let planned = try plan(current)
        try Self.checkRules(planned, now: now)
        func checked(_ report: PreflightReport) -> CheckedPlan {
            CheckedPlan(version: current?.version, planned: planned, report: report)
        }
        let addresses = LockoutCheck.evaluate(planned.pins, probes: probe.addresses, now: now)
        let enforcing = planned.enforce && !planned.retired
        let mismatched = addresses.filter { $0.matches == false }.map { $0.address }
        let unreachable = addresses.filter { $0.error != nil }
        if !mismatched.isEmpty {
            let detail =
                "\(mismatched.joined(separator: ", ")) \(mismatched.count == 1 ? "serves" : "serve") a chain that no pin of the new set of \(host) matches: publishing it would lock clients out. Pin one of the keys listed under preflight.addresses, or send \"force\": true"
            if enforcing, !probe.force {
                var error = ServiceError(PinSetError(.wouldLockOut, detail))
                error.preflight = PreflightReport(status: .mismatch, detail: detail, addresses: addresses)
                throw error
            }
            return checked(PreflightReport(status: .mismatch, detail: detail, addresses: addresses, forced: enforcing))
        }
        if !unreachable.isEmpty {
            let reasons = unreachable.map { $0.error ?? "" }.joined(separator: "; ")
            let detail = "cannot probe \(host): \(reasons)"
            let required = enforcing && configuration.probes.preflight == .require
            if required, !probe.force {
                var error = ServiceError(
                    PinSetError(
                        .preflightUnreachable,
                        "\(detail). The server requires a pre-flight check (--preflight require); send \"force\": true to publish anyway"
                    ))
                error.preflight = PreflightReport(status: .unreachable, detail: detail, addresses: addresses)
                throw error
            }
            return checked(
                PreflightReport(status: .unreachable, detail: detail, addresses: addresses, forced: required))
        }
        return checked(
            PreflightReport(
                status: .match, detail: "every address of \(host) serves a chain the new set matches",
                addresses: addresses))
    }
}
