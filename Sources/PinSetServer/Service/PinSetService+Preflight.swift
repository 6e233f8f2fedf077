import Foundation
import PinSetAdminAPI
import PinSetCore

extension PinSetService {
    /// Probes `host` for a write, before its transaction: when the pre-flight check is on, or when a pin
    /// asks for `capture`. `nil` when neither applies. Blocks for up to the probe timeout.
    func preflightProbe(host: String, inputs: [PinInput], force: Bool) throws(ServiceError) -> PreflightProbe? {
        let mode = configuration.probes.preflight
        let capture = inputs.contains { $0.capture != nil }
        guard mode != .off || capture else { return nil }
        let name = try Self.normalize(host)
        let addresses = HostProber(configuration: configuration.probes).probe(name)
        return PreflightProbe(addresses: addresses, force: force, checks: mode != .off)
    }

    /// The pre-flight check of a write: the plan's pins against what each address serves. Runs on a read of
    /// the current state, outside the writer. Throws 422 `would-lock-out` when an enforcing set matches no
    /// chain an address serves, and 422 `preflight-unreachable` under ``PreflightMode/require`` when the host
    /// could not be probed; `"force": true` overrides both. Report-only sets are never refused.
    ///
    /// - Returns: the checked pins (the transaction refuses a plan that differs) and the report; `nil` when
    ///   the host was probed only for capture.
    func preflightCheck(
        _ probe: PreflightProbe, host: String, mustExist: Bool, plan: (HostState?) throws(ServiceError) -> PlannedSet
    ) throws(ServiceError) -> (pins: [Pin], report: PreflightReport)? {
        guard probe.checks else { return nil }
        let now = StoredTime.truncate(clock())
        let current = try store.read { db in try HostRecords.fetch(db, name: host) }
        if mustExist, current == nil { throw Self.unknownHost(host) }
        let planned = try plan(current)
        do throws(PinSetError) {
            try PinSet.checkSafetyRules(pins: planned.pins, enforce: planned.enforce, now: now)
        } catch {
            throw ServiceError(error)
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
            return (
                planned.pins,
                PreflightReport(status: .mismatch, detail: detail, addresses: addresses, forced: enforcing)
            )
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
            return (
                planned.pins,
                PreflightReport(status: .unreachable, detail: detail, addresses: addresses, forced: required)
            )
        }
        return (
            planned.pins,
            PreflightReport(
                status: .match, detail: "every address of \(host) serves a chain the new set matches",
                addresses: addresses)
        )
    }
}
