import Locking
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import PinSetClient

extension PinSetNIO {
    /// Connects to `host:port`, completes a pinned TLS handshake, and returns the channel ready for I/O; throws a
    /// ``PinnedConnectionError`` that says why when the connection or the handshake fails.
    ///
    /// This is the safe way to open a pinned connection: a refused handshake closes the channel, so writing to a
    /// channel before the handshake is known to have passed fails ("I/O on closed channel"). Here nothing is
    /// returned until it passed, and a refusal is an error the caller cannot mistake for success.
    ///
    /// The channel is tracked by the trust manager (``PinTrustManager/trackConnection(host:chain:close:)``):
    /// when a new set that tightens refuses the chain this channel validated, the channel is closed, so a live
    /// connection never outlives the set that allowed it. (NIOSSL never resumes a client TLS session: every
    /// connection presents its chain and is evaluated against the sets then in force.)
    ///
    /// - Parameters:
    ///   - host: the name to connect to, a DNS name or an IP literal: SNI, hostname validation and pin lookup.
    ///   - port: the TCP port.
    ///   - address: where to connect instead of resolving `host` (an IP literal), default `nil`; `host` still
    ///     names the server for SNI, validation and pins.
    ///   - configuration: trust manager, roots, clock.
    ///   - context: a context from ``PinnedTLSConfiguration/makeContext()``, built once per process; default
    ///     builds one (costly).
    ///   - group: the event loop group; default `MultiThreadedEventLoopGroup.singleton`.
    ///   - connectTimeout: TCP connect deadline, default 10 s.
    ///   - handshakeTimeout: TLS handshake deadline, default 10 s.
    ///   - initializer: adds the application's handlers after the TLS handler (runs on the channel's event loop).
    /// - Throws: ``PinnedConnectionError``.
    public static func connect(
        host: String, port: Int, address: String? = nil, configuration: PinnedTLSConfiguration,
        context: NIOSSLContext? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        connectTimeout: TimeAmount = .seconds(10), handshakeTimeout: TimeAmount = .seconds(10),
        initializer: @escaping @Sendable (any Channel) throws -> Void = { _ in }
    ) async throws -> any Channel {
        let context = try context ?? configuration.makeContext()
        let outcome = Locked<PinSetVerificationCallback.Outcome?>(nil)
        let handshake = group.next().makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(connectTimeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let tls = try makeClientHandler(
                            serverHostname: host, configuration: configuration, context: context,
                            onOutcome: { result in outcome.withLock { $0 = result } })
                        try channel.pipeline.syncOperations.addHandlers([tls, HandshakeCompletion(handshake)])
                        try initializer(channel)
                    }
                }
                .connect(host: address ?? host, port: port).get()
        } catch {
            handshake.fail(error)
            throw PinnedConnectionError(.connectFailed, host: host, port: port, "\(error)")
        }
        let deadline = channel.eventLoop.scheduleTask(in: handshakeTimeout) {
            handshake.fail(PinnedConnectionError(.handshakeFailed, host: host, port: port, "timed out"))
        }
        defer { deadline.cancel() }
        do {
            try await handshake.futureResult.get()
            if case .accepted(let chain, _)? = outcome.withLock({ $0 }) {
                let manager = configuration.trustManager
                let token = manager.trackConnection(host: host, chain: chain) { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in manager.untrackConnection(token) }
            }
            return channel
        } catch {
            channel.close(promise: nil)
            switch outcome.withLock({ $0 }) {
            case .pinningRefused(let decision):
                throw PinnedConnectionError(.pinningRefused, host: host, port: port, decision: decision)
            case .standardValidationFailed(let reason):
                throw PinnedConnectionError(.standardValidationFailed, host: host, port: port, reason)
            case .accepted, nil:
                if let error = error as? PinnedConnectionError { throw error }
                throw PinnedConnectionError(.handshakeFailed, host: host, port: port, "\(error)")
            }
        }
    }
}

/// Why ``PinSetNIO/connect(host:port:address:configuration:context:group:connectTimeout:handshakeTimeout:initializer:)``
/// gave no channel. Compare ``code``; ``description`` is a sentence for a log or a terminal.
public struct PinnedConnectionError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Sendable, Hashable {
        /// The TCP connection could not be made (refused, unreachable, timed out, name not resolved).
        case connectFailed
        /// Standard chain or hostname validation refused the chain (untrusted root, wrong name, expired).
        case standardValidationFailed
        /// Standard validation passed and the pins refused the connection (``decision`` says how).
        case pinningRefused
        /// The handshake failed or timed out for another reason (protocol error, peer closed).
        case handshakeFailed
    }

    /// What failed.
    public let code: Code
    /// The host connected to.
    public let host: String
    /// The port connected to.
    public let port: Int
    /// For ``Code/pinningRefused``: the trust decision (``TrustDecision/pinMismatch(_:)`` with the served and the
    /// pinned keys, or ``TrustDecision/setMissing(host:allowed:)``, or ``TrustDecision/hostNotPinned(host:allowed:)``).
    public let decision: TrustDecision?
    /// Details.
    public let detail: String

    init(_ code: Code, host: String, port: Int, _ detail: String = "", decision: TrustDecision? = nil) {
        self.code = code
        self.host = host
        self.port = port
        self.decision = decision
        self.detail = detail
    }

    /// A sentence: what failed, for which host, and why.
    public var description: String {
        let target = "\(host):\(port)"
        switch code {
        case .connectFailed: return "could not connect to \(target): \(detail)"
        case .standardValidationFailed: return "\(target) failed standard certificate validation: \(detail)"
        case .handshakeFailed: return "the TLS handshake with \(target) failed: \(detail)"
        case .pinningRefused:
            switch decision {
            case .pinMismatch(let failure)?:
                let served = failure.chainPins.map { $0 ?? "(unreadable)" }.joined(separator: ", ")
                let pinned = failure.expectedPins.map(\.sha256).joined(separator: ", ")
                return "\(target) was refused by the pins of \(failure.notedHost) (version \(failure.version)): "
                    + "it served [\(served)], the set pins [\(pinned)]"
            case .setMissing?:
                return "\(target) was refused: the app pins \(host) but holds no pin set for it yet (the pin "
                    + "server could not be reached, or its documents were refused); see PinningOptions.missingSets"
            case .hostNotPinned?:
                return "\(target) was refused: it has no pins and unpinned hosts are denied"
            default:
                return "\(target) was refused by the pins"
            }
        }
    }
}

/// Completes a promise when the TLS handshake finishes; fails it if the channel errors or closes first.
private final class HandshakeCompletion: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Void>
    init(_ promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
