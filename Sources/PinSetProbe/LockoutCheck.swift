import Foundation
import PinSetAdminAPI
import PinSetCore

/// The pure decision behind the pre-flight check and the monitor: does a set accept what a host serves?
public enum LockoutCheck {
    /// The pins of `pins` still in force at `now` that match any certificate of `served`.
    public static func matchingPins(_ pins: [Pin], served: [ServedCertificate], now: Date) -> [Pin] {
        pins.filter { pin in
            (pin.expiresAt.map { $0 > now } ?? true) && served.contains { $0.matches(pin) }
        }
    }

    /// `probes` with ``AddressProbe/matches`` filled in for every address that served a chain.
    public static func evaluate(_ pins: [Pin], probes: [AddressProbe], now: Date) -> [AddressProbe] {
        probes.map { probe in
            var probe = probe
            if probe.error == nil {
                probe.matches = !matchingPins(pins, served: probe.served, now: now).isEmpty
            }
            return probe
        }
    }
}
