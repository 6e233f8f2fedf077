import Foundation
import PinSetCore

/// What the app learns when a chain matches no pin: enough to log it, show it, or send a TrustKit report.
public struct PinFailure: Sendable, Hashable {
    /// The host the app connected to.
    public let host: String
    /// The pinned domain whose set applied (`host` itself or a parent with `includeSubdomains`).
    public let notedHost: String
    /// Whether the set applies to subdomains.
    public let includeSubdomains: Bool
    /// Whether the set blocks connections (`false`: report-only).
    public let enforce: Bool
    /// The evaluated chain, DER, leaf first.
    public let chainDER: [[UInt8]]
    /// The SPKI pins (base64) of the chain's certificates, leaf first; `nil` for a certificate that could not be read.
    public let chainPins: [String?]
    /// The pins of the set that were in force (not expired).
    public let expectedPins: [Pin]
    /// The version of the document the set came from.
    public let version: Int
    /// The set's `reportUri`, if any.
    public let reportUri: String?
    /// When the evaluation happened.
    public let date: Date
    /// What the failure means, once ``PinSetUpdater`` fetched the newest set and evaluated the same chain again;
    /// `nil` when it was not classified (report-only sets, no updater, or straight from `onPinFailure`).
    public internal(set) var classification: PinFailureClassification?

    /// The chain as PEM strings, leaf first.
    public var chainPEM: [String] {
        chainDER.map { der in
            let body = Base64.encode(der)
            var lines: [Substring] = []
            var rest = body[...]
            while !rest.isEmpty {
                lines.append(rest.prefix(64))
                rest = rest.dropFirst(64)
            }
            return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
        }
    }

    /// This failure in TrustKit's report fields (PROTOCOL §3), for `POST /reports`.
    /// - Parameter port: the port the app connected to, default 443.
    public func report(port: Int = 443) -> PinFailureReport {
        PinFailureReport(
            dateTime: RFC3339.format(date), hostname: host, port: port, notedHostname: notedHost,
            includeSubdomains: includeSubdomains, enforcePinning: enforce, validatedCertificateChain: chainPEM,
            knownPins: expectedPins.map { "pin-sha256=\"\($0.sha256)\"" },
            pinsetClassification: classification?.rawValue)
    }
}

/// Whether a refused chain means the app was behind a legitimate rotation or possible interception.
///
/// ``PinSetUpdater`` decides it when an enforcing set refuses a chain: it fetches that host's document at once
/// (at most once a minute per host) and evaluates the same chain against whatever set is then in force.
public enum PinFailureClassification: String, Sendable, Hashable, CaseIterable {
    /// A newer signed set accepts this chain: the app was behind a legitimate rotation, and the next connection
    /// succeeds.
    case staleSet
    /// The newest set the app could get still refuses this chain: possible interception.
    case unexpectedKey
}
