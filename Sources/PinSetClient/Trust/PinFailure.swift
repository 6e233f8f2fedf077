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
            knownPins: expectedPins.map { "pin-sha256=\"\($0.sha256)\"" })
    }
}
