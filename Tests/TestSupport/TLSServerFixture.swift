import NIOCore
import NIOPosix
import NIOSSL
import X509

/// An in-process NIOSSL TLS server on 127.0.0.1 (ephemeral port) that serves `leaf` + the test CA's intermediate:
/// for the NIO client's tests, which need no `openssl s_server` (``TLSTestHost``) and no `--connect-to` address.
public struct TLSServerFixture: Sendable {
    /// The listening channel (close it to stop).
    public let channel: Channel
    /// Its ephemeral port.
    public let port: Int

    /// Starts a server sending `leaf` and `pki`'s intermediate, with `leaf`'s `key`, on `group`.
    public static func start(leaf: Certificate, key: NIOSSLPrivateKey, pki: TestPKI, group: EventLoopGroup)
        async throws -> TLSServerFixture
    {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(leaf.nio), .certificate(pki.intermediate.nio)], privateKey: .privateKey(key)
        )
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TLSServerFixture(channel: channel, port: channel.localAddress!.port!)
    }
}
