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
    /// The roots standard chain validation trusts. Default `nil`: the operating system's roots, which PinSetNIO
    /// can read on Linux only (``resolvedTrustRoots()``).
    ///
    /// - Important: On Apple platforms pass the roots explicitly. swift-certificates finds no system roots there
    ///   and would validate against an empty store, so every handshake would fail; PinSetNIO refuses that with
    ///   ``TrustRootsError`` instead. Apple apps usually want `PinningURLSessionDelegate` or
    ///   `PinnedServerTrustEvaluator`, which use the system's own trust evaluation.
    public var trustRoots: CertificateStore?
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
        trustManager: PinTrustManager, trustRoots: CertificateStore? = nil,
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
    /// - Throws: ``TrustRootsError`` when no roots were given and the system's cannot be read; NIOSSL's errors.
    public func makeContext() throws -> NIOSSLContext {
        _ = try resolvedTrustRoots()
        return try NIOSSLContext(configuration: tlsConfiguration)
    }

    /// The roots standard validation uses: ``trustRoots`` when given, else the system's.
    /// - Throws: ``TrustRootsError`` on Apple platforms when ``trustRoots`` is `nil`, and on Linux when no system
    ///   bundle exists (swift-certificates reads `/etc/ssl/certs/ca-certificates.crt` or
    ///   `/etc/pki/tls/certs/ca-bundle.crt`).
    public func resolvedTrustRoots() throws(TrustRootsError) -> CertificateStore {
        if let trustRoots { return trustRoots }
        return try Self.systemTrustRoots(bundles: Self.systemBundles)
    }

    /// The files swift-certificates reads the system roots from on Linux.
    static let systemBundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]

    /// swift-certificates' system roots, once it is known that it will find some in `bundles`.
    static func systemTrustRoots(bundles: [String]) throws(TrustRootsError) -> CertificateStore {
        #if canImport(Darwin)
            throw TrustRootsError(
                "PinSetNIO cannot read the system trust roots on Apple platforms (swift-certificates finds none "
                    + "there); pass PinnedTLSConfiguration(trustRoots:) explicitly, or pin URLSession with "
                    + "PinningURLSessionDelegate")
        #else
            guard bundles.contains(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
                throw TrustRootsError(
                    "no system trust roots: \(bundles.joined(separator: " and ")) cannot be read (install the "
                        + "ca-certificates package, or pass PinnedTLSConfiguration(trustRoots:) explicitly)")
            }
            return .systemTrustRoots
        #endif
    }
}

/// No trust roots for standard validation: none were configured and the system's cannot be read. PinSetNIO
/// refuses to validate against an empty store, which would fail every handshake without saying why.
public struct TrustRootsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is missing and how to fix it.
    public let description: String

    init(_ description: String) { self.description = description }
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
    /// - Throws: ``TrustRootsError`` when there are no roots to validate against; NIOSSL's errors.
    public static func makeClientHandler(
        serverHostname: String, configuration: PinnedTLSConfiguration, context: NIOSSLContext? = nil
    ) throws -> NIOSSLClientHandler {
        try makeClientHandler(
            serverHostname: serverHostname, configuration: configuration, context: context, onOutcome: nil)
    }

    static func makeClientHandler(
        serverHostname: String, configuration: PinnedTLSConfiguration, context: NIOSSLContext?,
        onOutcome: (@Sendable (PinSetVerificationCallback.Outcome) -> Void)?
    ) throws -> NIOSSLClientHandler {
        _ = try configuration.resolvedTrustRoots()
        let callback = PinSetVerificationCallback(
            host: serverHostname, configuration: configuration, onOutcome: onOutcome)
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
