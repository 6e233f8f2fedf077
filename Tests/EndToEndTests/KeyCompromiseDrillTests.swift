import Foundation
import Locking
import MicroHTTPD
import NIOCore
import NIOPosix
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetNIO
import PinSetOpenSSL
import PinSetServer
import TestSupport
import Testing
import X509

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TestServer {
    /// A pin server for the drill: a given SQLite file, a given key file, given root keys; re-signs every second.
    convenience init(drillDatabase database: String, key: String, rootKeys: [[UInt8]]) throws {
        try self.init(
            database: database, key: key, tokenName: "drill-\(UUID().uuidString.prefix(8))", refreshInterval: 1,
            resignCheck: 1, rootKeys: rootKeys)
    }

    /// `PUT /admin/trust` of `document`; the HTTP status.
    func pushTrust(_ document: [UInt8]) throws -> Int {
        try client.request("PUT", "/admin/trust", headers: auth, body: document).status
    }
}

/// Where the client's pin server name leads: the real server, the restarted one, or a rogue one (as DNS or a
/// network attacker would decide). Requests go over real HTTP through `URLSessionTransport`.
final class RoutedTransport: PinSetTransport, Sendable {
    let target: Locked<URL>
    let inner = URLSessionTransport()

    init(_ target: URL) { self.target = Locked(target) }

    func route(to url: URL) { target.withLock { $0 = url } }

    func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
        let base = target.withLock { $0 }
        let routed = URL(string: base.absoluteString + url.path)!
        return try await inner.get(routed, headers: headers)
    }
}

/// Issue 13, the compromise drill, all real: a pin server signing with A, a NIO client that ships only the root
/// public key; A leaks; root signs trust v2 naming only B offline; the server restarts with B and v2 is pushed;
/// the same client process, never restarted, moves to B and refuses a fresh document signed by A from a rogue
/// server that holds A.
@Suite(.serialized) struct KeyCompromiseDrillTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let pki = try! TestPKI(name: "pinset e2e")

    static func trustDocument(version: Int, root: Ed25519SigningKey, delegating key: [UInt8]) -> [UInt8] {
        let crypto = OpenSSLTrustCrypto()
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let payload = TrustPayload(
            version: version, issuedAt: now, expiresAt: now.addingTimeInterval(180 * 86_400),
            rootKeys: [TrustPayload.jwk(publicKey: root.publicKey, kid: root.kid)], rootThreshold: 1,
            signingKeys: [TrustPayload.jwk(publicKey: key, kid: crypto.kid(publicKey: key))])
        var document = TrustDocument(payload: Base64URL.encode(payload.encodedJSON()), signatures: [])
        let protected = Base64URL.encode(TrustDocument.protectedHeader(kid: root.kid))
        document.signatures.append(
            TrustSignature(
                protected: protected,
                signature: Base64URL.encode(root.sign(document.signingInput(protected: protected)))))
        return document.serialized
    }

    func waitFor(
        _ recorder: EventRecorder, from start: Int = 0, timeout: TimeInterval = 15, _ match: (UpdateEvent) -> Bool
    )
        async -> Bool
    {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if recorder.all.dropFirst(start).contains(where: match) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func aLeakedSigningKeyIsReplacedWithoutAnAppRelease() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pinset-drill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func newKey(_ name: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try ProcessRunner.text("openssl", "genpkey", "-algorithm", "ed25519", "-out", path)
            try ProcessRunner.text("chmod", "600", path)
            return path
        }
        let rootPath = try newKey("root.pem")  // offline, in real life on an air-gapped machine
        let keyA = try newKey("signing-a.pem")
        let keyB = try newKey("signing-b.pem")
        let root = try Ed25519SigningKey.load(pemFile: rootPath)
        let publicA = try Ed25519SigningKey.load(pemFile: keyA).publicKey
        let publicB = try Ed25519SigningKey.load(pemFile: keyB).publicKey
        let database = directory.appendingPathComponent("pinset.sqlite").path

        // 1. The pin server signs with A; trust v1 (root → A) is pushed; the host's set pins the TLS leaf.
        let (leaf, leafKey) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leaf, key: leafKey, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        var server: TestServer? = try TestServer(drillDatabase: database, key: keyA, rootKeys: [root.publicKey])
        #expect(try server!.pushTrust(Self.trustDocument(version: 1, root: root, delegating: publicA)) == 201)
        let backup = Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        #expect(try server!.putSet("localhost", pins: [(leaf.spkiPin, "current"), (backup, "backup")]) == 201)

        // The client ships only the root public key (as PEM, the way an app bundles it).
        let rootPEM = try ProcessRunner.text("openssl", "pkey", "-in", rootPath, "-pubout")
        let store = try TrustStore(rootKeys: [TrustedKey(spkiPEM: rootPEM)], threshold: 1)
        let manager = PinTrustManager(trustStore: store)
        let transport = RoutedTransport(server!.baseURL)
        let updater = PinSetUpdater(
            configuration: .init(
                server: URL(string: "http://pins.example.invalid")!, hosts: ["localhost"], minimumRefreshInterval: 1,
                jitter: 0, initialBackoff: 1, maximumBackoff: 2),
            trustManager: manager, transport: transport)
        let recorder = EventRecorder(updater.events)
        let client = try PinnedNIOClient(
            group: Self.group,
            configuration: PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([Self.pki.root])))
        await updater.start()
        #expect(await recorder.waitForUpdate(host: "localhost", version: 1))
        #expect(store.current.version == 1)
        #expect(manager.document(for: "localhost")?.kid == server!.app!.trust.signingKid)
        #expect(try await client.connects(port: tls.port))

        // Keep what an attacker who stole A would also have: a copy of the database as it was.
        server!.stop()
        server = nil
        let rogueDatabase = directory.appendingPathComponent("rogue.sqlite").path
        try FileManager.default.copyItem(atPath: database, toPath: rogueDatabase)

        // 2. A leaks. Offline, root signs trust v2 naming only B; the server restarts with B; v2 is pushed.
        let v2 = Self.trustDocument(version: 2, root: root, delegating: publicB)
        let restarted = try TestServer(drillDatabase: database, key: keyB, rootKeys: [root.publicKey])
        defer { restarted.stop() }
        #expect(try restarted.app!.trust.delegation() == .notDelegated)
        transport.route(to: restarted.baseURL)
        #expect(try restarted.pushTrust(v2) == 201)

        // 3. The same client process, no restart: it walks to v2 and accepts B's documents.
        #expect(await waitFor(recorder) { if case .trustUpdated(2, _) = $0 { true } else { false } })
        let kidB = restarted.app!.trust.signingKid
        let movedToB = await waitFor(recorder) { _ in manager.document(for: "localhost")?.kid == kidB }
        #expect(movedToB)
        #expect(manager.pinSet(for: "localhost")?.pins.contains { $0.sha256 == leaf.spkiPin } == true)
        #expect(try await client.connects(port: tls.port))

        // A rogue server holding A and the old database publishes a fresh, valid-looking set for its own key.
        let rogue = try TestServer(drillDatabase: rogueDatabase, key: keyA, rootKeys: [root.publicKey])
        defer { rogue.stop() }
        let (evilLeaf, evilKey) = try Self.pki.makeLeaf()
        let evilTLS = try await TLSServerFixture.start(leaf: evilLeaf, key: evilKey, pki: Self.pki, group: Self.group)
        defer { evilTLS.channel.close(promise: nil) }
        let evilBackup = Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        #expect(
            try rogue.putSet("localhost", pins: [(evilLeaf.spkiPin, "current"), (evilBackup, "backup")]) == 200)
        let forged = try rogue.client.request("GET", "/pins/localhost").body
        guard case .failure(let direct) = manager.accept(Array(forged), for: "localhost", now: Date()) else {
            Issue.record("a fresh document signed by the leaked key A was accepted")
            await updater.stop()
            return
        }
        #expect(direct.code == .unknownKey)

        // Served to the client by the rogue server: refused (unknown kid; its /trust is v1, a rollback).
        let mark = recorder.all.count
        transport.route(to: rogue.baseURL)
        #expect(
            await waitFor(recorder, from: mark) {
                if case .rejected("localhost", let rejection) = $0 { rejection.code == .unknownKey } else { false }
            })
        #expect(
            await waitFor(recorder, from: mark) {
                if case .trustRejected(let rejection) = $0 { rejection.code == .rollback } else { false }
            })
        #expect(store.current.version == 2)
        #expect(manager.document(for: "localhost")?.kid == kidB)
        #expect(manager.pinSet(for: "localhost")?.pins.contains { $0.sha256 == evilLeaf.spkiPin } == false)
        #expect(try await client.connects(port: tls.port))
        #expect(try await !client.connects(port: evilTLS.port))
        await updater.stop()
    }
}
