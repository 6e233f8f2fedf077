import Foundation
import NIOCore
import NIOPosix

/// A tiny HTTP/1.1 listener on 127.0.0.1 that records POST bodies and answers 204 (or never answers, when
/// `answers` is false, to show that reporting does not block).
final class ReportListener: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [[UInt8]] = []
    let channel: Channel
    var port: Int { channel.localAddress!.port! }
    var url: URL { URL(string: "http://127.0.0.1:\(port)/reports")! }
    var bodies: [[UInt8]] { lock.withLock { recorded } }

    init(group: EventLoopGroup, answers: Bool = true) async throws {
        let box = Box()
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        RequestHandler(answers: answers) { body in box.listener?.record(body) })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        box.listener = self
    }

    private func record(_ body: [UInt8]) { lock.withLock { recorded.append(body) } }

    /// Waits until at least `count` bodies arrived; `false` after `timeout`.
    func waitFor(count: Int, timeout: TimeInterval = 5) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if bodies.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return bodies.count >= count
    }

    private final class Box: @unchecked Sendable {
        weak var listener: ReportListener?
    }

    private final class RequestHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let answers: Bool
        let onBody: ([UInt8]) -> Void
        var buffer: [UInt8] = []

        init(answers: Bool, onBody: @escaping ([UInt8]) -> Void) {
            self.answers = answers
            self.onBody = onBody
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var incoming = unwrapInboundIn(data)
            buffer += incoming.readBytes(length: incoming.readableBytes) ?? []
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let end = buffer.indices.first(where: { buffer[$0...].starts(with: separator) }) else { return }
            let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            let bodyStart = end + separator.count
            guard buffer.count - bodyStart >= length else { return }
            onBody(Array(buffer[bodyStart..<bodyStart + length]))
            buffer.removeAll()
            guard answers else { return }
            let response = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }
}
