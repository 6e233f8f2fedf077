import Foundation
import Locking
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import X509

/// Makes a TLS handshake and records the certificate chain the server presents, WITHOUT validating it:
/// a diagnostic for `pinset pin --connect`. The verification callback accepts any chain.
enum ChainProbe {
    /// The DER certificates the server at `endpoint` (`HOST:PORT`, `[v6]:PORT`) presents, leaf first.
    static func presentedChain(endpoint: String, serverName: String?) async throws -> [[UInt8]] {
        guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]),
            (1...65_535).contains(port)
        else { throw CLIError("--connect \"\(endpoint)\" is not HOST:PORT") }
        var host = String(endpoint[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let sni = serverName ?? (isAddress ? nil : host)

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .noHostnameVerification  // the callback below replaces chain checking
        let context = try NIOSSLContext(configuration: tls)
        let recorder = ChainRecorder()
        let group = MultiThreadedEventLoopGroup.singleton
        let handshake = group.next().makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: sni,
                        customVerificationCallback: { certificates, promise in
                            recorder.record(certificates.compactMap { try? $0.toDERBytes() })
                            promise.succeed(.certificateVerified)  // diagnostic: accept and record
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)  // never leave a promise unfulfilled (NIO traps on leaked promises)
            throw CLIError("cannot connect to \(endpoint): \(error)")
        }
        do {
            try await handshake.futureResult.get()
        } catch {
            try? await channel.close().get()
            throw CLIError("TLS handshake with \(endpoint) failed: \(error)")
        }
        try? await channel.close().get()
        let chain = recorder.chain
        guard !chain.isEmpty else { throw CLIError("\(endpoint) presented no certificate") }
        return chain
    }

    /// Whether a DER certificate's issuer equals its subject.
    static func isSelfIssued(_ der: [UInt8]) -> Bool {
        guard let certificate = try? Certificate(derEncoded: der) else { return false }
        return certificate.issuer == certificate.subject
    }
}

/// Holds the chain the verification callback saw.
private final class ChainRecorder: Sendable {
    private let recorded = Locked<[[UInt8]]>([])
    func record(_ chain: [[UInt8]]) { recorded.withLock { $0 = chain } }
    var chain: [[UInt8]] { recorded.withLock { $0 } }
}

/// Completes a promise when the TLS handshake finishes or fails.
private final class HandshakeWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<Void>
    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(CLIError("the connection closed before the TLS handshake finished"))
        context.fireChannelInactive()
    }
}
