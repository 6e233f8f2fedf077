import Foundation
import NIOCore
import NIOSSL
import PinSetClient
@_spi(FixedExpiryValidationTime) import X509

/// A `NIOSSLCustomVerificationCallbackWithMetadata` that pins one connection.
///
/// The callback replaces BoringSSL's own chain check, so it first runs standard validation itself with
/// swift-certificates' `Verifier` (`RFC5280Policy` + `ServerIdentityPolicy`) against the configured roots, then
/// asks the ``PinTrustManager`` about the *validated* chain (leaf → root), never the chain as sent.
public struct PinSetVerificationCallback: Sendable {
    /// The outcome of one verification.
    public enum Outcome: Sendable, Hashable {
        /// Standard validation passed and the pins allow the connection; the validated chain is DER, leaf first.
        case accepted(validatedChain: [[UInt8]], decision: TrustDecision)
        /// Standard validation failed (untrusted root, wrong name, expired, unparsable certificate).
        case standardValidationFailed(String)
        /// Standard validation passed but the pins refuse the connection.
        case pinningRefused(TrustDecision)
    }

    /// The name connected to.
    public let host: String
    /// Trust manager, roots and clock.
    public let configuration: PinnedTLSConfiguration

    /// Told the outcome of each verification (``PinSetNIO/connect(host:port:address:configuration:context:group:connectTimeout:handshakeTimeout:initializer:)``
    /// turns it into a ``PinnedConnectionError``).
    let onOutcome: (@Sendable (Outcome) -> Void)?

    /// Creates a callback for a connection to `host`.
    public init(host: String, configuration: PinnedTLSConfiguration) {
        self.init(host: host, configuration: configuration, onOutcome: nil)
    }

    init(host: String, configuration: PinnedTLSConfiguration, onOutcome: (@Sendable (Outcome) -> Void)?) {
        self.host = host
        self.configuration = configuration
        self.onOutcome = onOutcome
    }

    /// The closure to hand to `NIOSSLClientHandler(context:serverHostname:customVerificationCallbackWithMetadata:)`.
    public var callback: NIOSSLCustomVerificationCallbackWithMetadata {
        { certificates, promise in self.verify(certificates, promise: promise) }
    }

    /// Verifies the peer's chain and completes `promise`: `.certificateVerified` with the validated chain, or
    /// `.failed`.
    public func verify(
        _ certificates: [NIOSSLCertificate], promise: EventLoopPromise<NIOSSLVerificationResultWithMetadata>
    ) {
        let presented: [[UInt8]]
        do {
            presented = try certificates.map { try $0.toDERBytes() }
        } catch {
            onOutcome?(.standardValidationFailed("a presented certificate could not be read: \(error)"))
            promise.succeed(.failed)
            return
        }
        Task {
            let outcome = await evaluate(presentedChain: presented)
            onOutcome?(outcome)
            switch outcome {
            case .accepted(let chain, _):
                do {
                    let validated = try chain.map { try NIOSSLCertificate(bytes: $0, format: .der) }
                    promise.succeed(
                        .certificateVerified(VerificationMetadata(NIOSSL.ValidatedCertificateChain(validated))))
                } catch {
                    promise.succeed(.failed)
                }
            case .standardValidationFailed, .pinningRefused:
                promise.succeed(.failed)
            }
        }
    }

    /// The decision logic without NIO types: standard validation of `presentedChain` (DER, leaf first), then pins.
    public func evaluate(presentedChain: [[UInt8]]) async -> Outcome {
        guard !presentedChain.isEmpty else { return .standardValidationFailed("the peer sent no certificate") }
        let now = configuration.clock()
        guard configuration.performsStandardValidation else {
            let decision = configuration.trustManager.evaluate(chain: presentedChain, host: host, now: now)
            return decision.allowsConnection
                ? .accepted(validatedChain: presentedChain, decision: decision) : .pinningRefused(decision)
        }
        let parsed: [Certificate]
        do {
            parsed = try presentedChain.map { try Certificate(derEncoded: $0) }
        } catch {
            return .standardValidationFailed("a presented certificate is not valid DER: \(error)")
        }
        var derOf: [Certificate: [UInt8]] = [:]
        for (certificate, der) in zip(parsed, presentedChain) { derOf[certificate] = der }

        let isIP = PinSetNIO.isIPAddress(host)
        let host = self.host
        let roots: CertificateStore
        do { roots = try configuration.resolvedTrustRoots() } catch {
            return .standardValidationFailed(error.description)
        }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: now)
            ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
        }
        let result = await verifier.validate(leaf: parsed[0], intermediates: CertificateStore(parsed.dropFirst()))
        guard case .validCertificate(let chain) = result else {
            if case .couldNotValidate(let failures) = result, let first = failures.first {
                return .standardValidationFailed("\(first.policyFailureReason)")
            }
            return .standardValidationFailed("no chain to a trusted root")
        }
        var validated: [[UInt8]] = []
        for certificate in chain {
            if let der = derOf[certificate] {
                validated.append(der)
            } else if let der = try? certificate.serializeAsPEM().derBytes {
                validated.append(der)  // the root came from the store, not from the peer
            } else {
                return .standardValidationFailed("could not serialise a certificate of the validated chain")
            }
        }
        let decision = configuration.trustManager.evaluate(chain: validated, host: host, now: now)
        return decision.allowsConnection
            ? .accepted(validatedChain: validated, decision: decision) : .pinningRefused(decision)
    }
}
