import NIOCore
import NIOTLS

/// Completes a promise when the TLS handshake finishes; fails it if the channel errors or closes first.
public final class HandshakeWaiter: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Void>

    /// A waiter that completes `promise`.
    public init(promise: EventLoopPromise<Void>) { self.promise = promise }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    public func errorCaught(context: ChannelHandlerContext, error: Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        struct Closed: Error {}
        promise.fail(Closed())
        context.fireChannelInactive()
    }
}
