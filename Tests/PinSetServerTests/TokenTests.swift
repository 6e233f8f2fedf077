import Foundation
import OpenSSLCrypto
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

@Suite(.blocking) struct TokenTests {
    @Test func createAuthenticateRevoke() throws {
        let f = try ServiceFixture()
        let token = try f.service.createToken(name: "alice")
        #expect(token.hasPrefix("pst_"))
        #expect(Base64URL.decode(token.dropFirst(4))?.count == 32)
        #expect(f.service.authenticate(bearer: token) == "alice")
        #expect(f.service.authenticate(bearer: token + "x") == nil)
        #expect(f.service.authenticate(bearer: "") == nil)
        #expect(f.service.authenticate(bearer: "pst_" + Base64URL.encode(SecureRandom.bytes(count: 32))) == nil)

        let other = try f.service.createToken(name: "bob")
        #expect(other != token)
        #expect(f.service.authenticate(bearer: other) == "bob")

        try f.service.revokeToken(name: "alice")
        #expect(f.service.authenticate(bearer: token) == nil)
        #expect(f.service.authenticate(bearer: other) == "bob")
        #expect(expectServiceError { try f.service.revokeToken(name: "alice") }?.code == .notFound)

        let tokens = try f.service.listTokens()
        #expect(tokens.map(\.name) == ["alice", "bob"])
        #expect(tokens[0].revokedAt != nil && tokens[1].revokedAt == nil)

        // A revoked name may be reused; the new token is a different secret.
        let again = try f.service.createToken(name: "alice")
        #expect(f.service.authenticate(bearer: again) == "alice")
        #expect(f.service.authenticate(bearer: token) == nil)
    }

    @Test func activeNamesAreUnique() throws {
        let f = try ServiceFixture()
        _ = try f.service.createToken(name: "ops")
        let error = expectServiceError { try f.service.createToken(name: "ops") }
        #expect(error?.code == .conflict && error?.status == 409)
    }

    @Test(arguments: ["", "has space", String(repeating: "a", count: 65), "x/y", "\u{e9}"])
    func badNamesAre400(name: String) throws {
        let f = try ServiceFixture()
        #expect(expectServiceError { try f.service.createToken(name: name) }?.code == .badRequest)
    }

    @Test func clearTokenNeverReachesTheDatabaseFiles() throws {
        let f = try ServiceFixture()
        let token = try f.service.createToken(name: "secret-holder")
        let hash = SHA256Digest.hash(Array(token.utf8))
        try f.store.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: f.directory.appendingPathComponent("db").path)
        var sawHash = false
        for file in files {
            let bytes = try Data(contentsOf: f.directory.appendingPathComponent("db/\(file)"))
            #expect(bytes.range(of: Data(token.utf8)) == nil, "clear token found in \(file)")
            #expect(bytes.range(of: Data(token.dropFirst(4).utf8)) == nil, "token body found in \(file)")
            if bytes.range(of: Data(hash)) != nil { sawHash = true }
        }
        #expect(sawHash)
        // grep agrees.
        #expect(throws: (any Error).self) { try sh("grep -r -F -q '\(token)' db", in: f.directory) }
        f.store = try PinDatabase(path: f.databasePath)
    }

    @Test func tokensCreatedByAnotherServiceInstanceAreSeenAfterTheCacheLifetime() throws {
        let f = try ServiceFixture()
        let second = try PinSetService(
            store: f.store, signingKey: f.key, configuration: f.configuration, publish: { _ in })
        let token = try second.createToken(name: "cli")
        #expect(second.authenticate(bearer: token) == "cli")
        // The first instance trusts its cache for a few seconds, then reloads.
        f.service.tokenCache.withLock { $0.loadedAt = -.infinity }
        #expect(f.service.authenticate(bearer: token) == "cli")
        try second.revokeToken(name: "cli")
        f.service.tokenCache.withLock { $0.loadedAt = -.infinity }
        #expect(f.service.authenticate(bearer: token) == nil)
    }
}
