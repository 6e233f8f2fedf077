import Foundation
import MicroHTTPD
import NIOCore
import NIOPosix
import NIOSSL
import PinSetClient
import PinSetNIO
import PinSetServer
import TestSupport
import X509

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TestServer {
    /// `GET /admin/reports` with the bearer token: the stored report groups, as JSON objects.
    func reportGroups() throws -> [[String: Any]] {
        let data = Data(try client.request("GET", "/admin/reports", headers: auth).body)
        let object = try JSONSerialization.jsonObject(with: data)
        if let list = object as? [[String: Any]] { return list }
        return ((object as? [String: Any])?["groups"] as? [[String: Any]]) ?? []
    }
}

/// A pinned NIO client: one configuration and one `NIOSSLContext` for the whole process (no restart between
/// connections).
struct PinnedNIOClient {
    let group: EventLoopGroup
    let configuration: PinnedTLSConfiguration
    let context: NIOSSLContext

    init(group: EventLoopGroup, configuration: PinnedTLSConfiguration) throws {
        self.group = group
        self.configuration = configuration
        context = try configuration.makeContext()
    }

    /// Connects to 127.0.0.1:`port` as `localhost`; `true` when the TLS handshake completes.
    func connects(port: Int) async throws -> Bool {
        let handshake = group.next().makePromise(of: Void.self)
        let configuration = configuration
        let context = context
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try PinSetNIO.makeClientHandler(
                        serverHostname: "localhost", configuration: configuration, context: context)
                    try channel.pipeline.syncOperations.addHandlers([tls, HandshakeWaiter(promise: handshake)])
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        defer { channel.close(promise: nil) }
        do {
            try await handshake.futureResult.get()
            return true
        } catch {
            return false
        }
    }
}

/// Records an updater's events so a test can wait for one with a deadline.
final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [UpdateEvent] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<UpdateEvent>) {
        task = Task { [weak self] in
            for await event in stream { self?.append(event) }
        }
    }

    private func append(_ event: UpdateEvent) { lock.withLock { events.append(event) } }

    /// Every event recorded so far.
    var all: [UpdateEvent] { lock.withLock { events } }

    /// Waits until `host` has been updated to at least `version`; `false` after `timeout` seconds.
    /// Bounded at 30 s, which a local fetch of a few milliseconds never needs: the tests that block their thread run
    /// on lanes of their own (`.blocking`, ``BlockingTrait``), so the cooperative pool the updater runs on is free.
    /// Before the lanes, such tests held both pool threads for minutes under the full suite and this wait ran out.
    func waitForUpdate(host: String, version: Int, timeout: TimeInterval = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let seen = all.contains {
                if case .updated(let h, let v) = $0, h == host, v >= version { return true }
                return false
            }
            if seen { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
