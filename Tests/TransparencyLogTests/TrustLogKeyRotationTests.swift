import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetWitness
import Testing
import TransparencyLog

@testable import PinSetServer

/// A trust document's `logKeys` (PROTOCOL §6.1, §7.1) under a tlog-policy: the trust document itself is accepted
/// only with its proof, and a log key it names is accepted beside the policy's for the policy's log origin, so the
/// log key rotates like a signing key.
@Suite struct TrustLogKeyRotationTests {
    typealias World = UpdaterLogTests.World

    /// Trust version 1 signed by `root`, delegating `signing` and naming `logKeys`.
    static func trustDocument(root: Ed25519SigningKey, signing: Ed25519SigningKey, logKeys: [Ed25519SigningKey])
        -> [UInt8]
    {
        let now = Date()
        let payload = TrustPayload(
            version: 1, issuedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(86_400),
            rootKeys: [TrustPayload.jwk(publicKey: root.publicKey, kid: root.kid)], rootThreshold: 1,
            signingKeys: [TrustPayload.jwk(publicKey: signing.publicKey, kid: signing.kid)],
            logKeys: logKeys.isEmpty ? nil : logKeys.map { TrustPayload.jwk(publicKey: $0.publicKey, kid: $0.kid) })
        let encoded = Base64URL.encode(payload.encodedJSON())
        let protected = Base64URL.encode(TrustDocument.protectedHeader(kid: root.kid))
        let signature = Base64URL.encode(root.sign(Array((protected + "." + encoded).utf8)))
        return TrustDocument(payload: encoded, signatures: [TrustSignature(protected: protected, signature: signature)])
            .serialized
    }

    /// The policy's log key is `world.logKey`; the server's log signs with `rotated`, named (or not) by the trust
    /// document. Returns the client's manager after a trust refresh and a fetch of the pin document.
    static func run(naming: Bool) async throws -> (PinTrustManager, UpdateEvent, [UpdateEvent]) {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let root = try Ed25519SigningKey.generate()
        let rotated = try Ed25519SigningKey.generate()
        let rotatedVKey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: rotated).key
        // The witnesses follow the log under its new key (a witness is told of a key change by its operator).
        let witnesses = try (1...2).map { i in
            try Witness(
                signer: NoteSigner(name: "w\(i).example", type: .cosignature, key: Ed25519SigningKey.generate()),
                logs: [rotatedVKey], databasePath: world.directory.appendingPathComponent("r\(i).sqlite").path,
                crypto: crypto)
        }
        let policy = world.policyText.replacingOccurrences(
            of: world.witnesses[0].verifierKey.description, with: witnesses[0].verifierKey.description
        )
        .replacingOccurrences(
            of: world.witnesses[1].verifierKey.description, with: witnesses[1].verifierKey.description)
        let server = try LogServer(logKey: rotated, witnesses: witnesses)
        let trust = Self.trustDocument(root: root, signing: world.signingKey, logKeys: naming ? [rotated] : [])
        let pins = world.document(version: 1)
        #expect(
            try server.publish([String(decoding: trust, as: UTF8.self), String(decoding: pins, as: UTF8.self)]) == [
                200, 200,
            ])
        let transport = UpdaterLogTests.LogTransport()
        try transport.serve(pins, host: UpdaterLogTests.host, index: 1, from: server)
        let proof = try server.log.proof(index: 0).bytes
        transport.bodies.withLock { bodies in
            bodies["/trust"] = trust
            bodies["/trust/1"] = trust
            bodies["/trust/1/proof"] = proof
        }
        var options = PinningOptions()
        try options.setLogPolicy(text: policy)
        let manager = PinTrustManager(
            trustStore: try TrustStore(rootKeys: [try TrustedKey(rawRepresentation: root.publicKey)]), options: options)
        let updater = world.updater(manager, transport, storage: nil)
        await updater.refreshTrust()
        let event = await updater.refreshNow(host: UpdaterLogTests.host)
        await updater.stop()
        var events: [UpdateEvent] = []
        for await event in updater.events { events.append(event) }
        return (manager, event, events)
    }

    @Test func aLogKeyNamedByTheTrustDocumentIsAcceptedForThePolicysLog() async throws {
        let (manager, event, _) = try await Self.run(naming: true)
        #expect(manager.trustStore?.current.version == 1)
        guard case .updated(_, 1) = event else {
            Issue.record("the document logged under the rotated key was refused: \(event)")
            return
        }
    }

    @Test func aLogKeyNobodyNamedIsRefusedAndSoIsTheTrustDocumentItLogged() async throws {
        let (manager, event, events) = try await Self.run(naming: false)
        #expect(manager.trustStore?.current.version == 0)
        let trustRefusals = events.compactMap { if case .trustRejected(let r) = $0 { r.code } else { nil } }
        #expect(trustRefusals.first == .notLogged)
        guard case .rejected(_, let rejection) = event, rejection.code == .notLogged else {
            Issue.record("a document logged under an unknown key was accepted: \(event)")
            return
        }
        #expect(manager.pinSet(for: UpdaterLogTests.host) == nil)
    }
}
