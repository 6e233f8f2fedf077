import Foundation
import PinSetAdminAPI
import PinSetCore
import PinSetProbe

extension HostStatus {
    /// The status of `host` given its pins and a fresh probe: pure, so it is tested without sockets.
    ///
    /// - Parameter expiryWarning: seconds before a leaf's `notAfter` or a matching pin's `expiresAt` that
    ///   count as "soon".
    package static func evaluate(
        host: String, pins: [Pin], probes: [AddressProbe], now: Date, expiryWarning: TimeInterval
    ) -> HostStatus {
        let addresses = LockoutCheck.evaluate(pins, probes: probes, now: now)
        let soon = now.addingTimeInterval(expiryWarning)
        var warnings = Set<Warning>()
        let reachable = addresses.filter { $0.error == nil }
        if reachable.contains(where: { $0.matches == false }) { warnings.insert(.servedKeyNotPinned) }
        if reachable.count < addresses.count || reachable.isEmpty { warnings.insert(.unreachable) }
        let leafNotAfter = reachable.compactMap { $0.leafNotAfter }.min()
        if let leafNotAfter, leafNotAfter <= soon { warnings.insert(.certificateExpiresSoon) }
        for address in reachable where address.matches == true {
            let matching = LockoutCheck.matchingPins(pins, served: address.served, now: now)
            if matching.allSatisfy({ ($0.expiresAt ?? .distantFuture) <= soon }) {
                warnings.insert(.onlyMatchingPinExpiresSoon)
            }
        }
        let ordered = Warning.allCases.filter { warnings.contains($0) }
        let state: MonitorState =
            warnings.contains(.servedKeyNotPinned) ? .failing : (ordered.isEmpty ? .ok : .warning)
        return HostStatus(
            host: host, state: state, checkedAt: now,
            pinsMatch: !reachable.isEmpty && reachable.allSatisfy { $0.matches == true }, leafNotAfter: leafNotAfter,
            warnings: ordered, addresses: addresses)
    }
}
