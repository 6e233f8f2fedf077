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

/// A real pin server: SQLite file and openssl-made Ed25519 key in a temp dir, libmicrohttpd on an ephemeral
/// loopback port, `refreshInterval` 1 s (so documents carry `Cache-Control: max-age=1`).
final class PinServerFixture: @unchecked Sendable {
    let directory: URL
    let app: PinSetServerApp
    let token: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = directory.appendingPathComponent("key.pem").path
        try ProcessRunner.text("openssl", "genpkey", "-algorithm", "ed25519", "-out", keyPath)
        try ProcessRunner.text("chmod", "600", keyPath)
        var http = HTTPServerConfiguration()
        http.port = 0
        let configuration = PinSetServerConfiguration(
            databasePath: directory.appendingPathComponent("pinset.sqlite").path, keyPath: keyPath, http: http,
            service: ServiceConfiguration(refreshInterval: 1))
        app = try PinSetServerApp(configuration: configuration)
        token = try app.service.createToken(name: "e2e")
    }

    deinit {
        app.shutdown(gracePeriod: 1)
        try? FileManager.default.removeItem(at: directory)
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(app.port)")! }

    /// The server's signing public key, read with the openssl CLI (as an app would ship it).
    func trustedKey() throws -> TrustedKey {
        let keyPath = directory.appendingPathComponent("key.pem").path
        return try TrustedKey(spkiPEM: try ProcessRunner.text("openssl", "pkey", "-in", keyPath, "-pubout"))
    }

    /// `PUT /admin/hosts/{host}` with the bearer token; returns the HTTP status.
    func putSet(host: String, pins: [(sha256: String, role: String)], reportUri: String? = nil) async throws -> Int {
        let list = pins.map { #"{"sha256":"\#($0.sha256)","role":"\#($0.role)"}"# }.joined(separator: ",")
        let report = reportUri.map { #","reportUri":"\#($0)""# } ?? ""
        var request = URLRequest(url: baseURL.appendingPathComponent("admin/hosts/\(host)"))
        request.httpMethod = "PUT"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"pins":[\#(list)]\#(report)}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

extension PinServerFixture {
    /// `GET /admin/reports` with the bearer token: the stored report groups, as JSON objects.
    func reportGroups() async throws -> [[String: Any]] {
        var request = URLRequest(url: baseURL.appendingPathComponent("admin/reports"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: data)
        if let list = object as? [[String: Any]] { return list }
        return ((object as? [String: Any])?["groups"] as? [[String: Any]]) ?? []
    }
}

/// A NIOSSL TLS server on 127.0.0.1 that serves `leaf` + the test CA's intermediate.
struct TLSServerFixture {
    let channel: Channel
    let port: Int

    static func start(leaf: Certificate, key: NIOSSLPrivateKey, pki: TestPKI, group: EventLoopGroup)
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
    /// Bounded at 30 s: under `swift test`'s parallel suites on 2 cores, blocking tests can hold the cooperative pool
    /// the updater runs on for many seconds (10 s was not enough once, with builds running beside the tests).
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
