import Foundation
import NIOSSL
import PinSetClient
import X509

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a pinned NIO TLS client needs: the trust manager, the roots for standard validation, a clock, and the
/// base TLS configuration.
public struct PinnedTLSConfiguration: Sendable {
    /// The manager whose pins decide after standard validation.
    public var trustManager: PinTrustManager
    /// The roots standard chain validation trusts. Default: the system's (``CertificateStore/systemTrustRoots``).
    public var trustRoots: CertificateStore
    /// Whether standard chain and hostname validation runs before the pins (PROTOCOL §5). Default `true`.
    ///
    /// - Warning: `false` is for tests only: pins are then checked against whatever chain the peer sends,
    ///   which any peer can stuff with a pinned CA certificate.
    public var performsStandardValidation: Bool
    /// The time source for certificate validity and pin expiry. Default `Date()`.
    public var clock: @Sendable () -> Date
    /// The TLS settings (versions, ciphers, ALPN) the context is built from. Its `certificateVerification` must
    /// not be `.none`, or NIOSSL skips the verification callback. Default `.makeClientConfiguration()`.
    public var tlsConfiguration: TLSConfiguration

    /// Creates a configuration; every field but `trustManager` has the default described on it.
    public init(
        trustManager: PinTrustManager, trustRoots: CertificateStore = .systemTrustRoots,
        performsStandardValidation: Bool = true, clock: @escaping @Sendable () -> Date = { Date() },
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
    ) {
        self.trustManager = trustManager
        self.trustRoots = trustRoots
        self.performsStandardValidation = performsStandardValidation
        self.clock = clock
        self.tlsConfiguration = tlsConfiguration
    }

    /// Builds the `NIOSSLContext` (costly: build it once and reuse it for every connection).
    public func makeContext() throws -> NIOSSLContext {
        try NIOSSLContext(configuration: tlsConfiguration)
    }
}

/// Factories for pinned NIO TLS clients.
public enum PinSetNIO {
    /// A client TLS handler for `serverHostname` whose verification is ``PinSetVerificationCallback``: standard
    /// validation with swift-certificates against ``PinnedTLSConfiguration/trustRoots``, then the pins.
    ///
    /// - Parameters:
    ///   - serverHostname: the name connected to, a DNS name or an IP literal; used for SNI (DNS names only),
    ///     hostname validation and pin lookup.
    ///   - configuration: trust manager, roots, clock.
    ///   - context: a context from ``PinnedTLSConfiguration/makeContext()``; default builds one (costly).
    public static func makeClientHandler(
        serverHostname: String, configuration: PinnedTLSConfiguration, context: NIOSSLContext? = nil
    ) throws -> NIOSSLClientHandler {
        let callback = PinSetVerificationCallback(host: serverHostname, configuration: configuration)
        let isIP = isIPAddress(serverHostname)
        return try NIOSSLClientHandler(
            context: context ?? configuration.makeContext(), serverHostname: isIP ? nil : serverHostname,
            customVerificationCallbackWithMetadata: callback.callback)
    }

    /// Whether `host` is an IPv4 or IPv6 literal (no SNI for those; the identity check uses the IP SAN).
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
