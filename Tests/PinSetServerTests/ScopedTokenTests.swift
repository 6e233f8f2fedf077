import Foundation
import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Scoped admin tokens (issue 16) through a real server: roles, host patterns, 403 naming the missing right
/// (never 404 outside the scope), the filtered hosts listing, and history recording the token's name.
@Suite(.blocking) struct ScopedTokenTests {
    private func token(_ server: TestServer, _ name: String, _ role: TokenRole, _ hosts: [String]?) throws -> [String:
        String]
    {
        let scope = TokenScope(
            role: role, hosts: try hosts?.map { text throws(HostName.Error) in try HostPattern(text) })
        return ["Authorization": "Bearer \(try server.app!.service.createToken(name: name, scope: scope))"]
    }

    private func put(_ server: TestServer, _ host: String, _ auth: [String: String], seed: UInt8 = 1) throws
        -> TestHTTPClient.Response
    {
        try server.client.request("PUT", "/admin/hosts/\(host)", headers: auth, body: Array(pinPair(seed).utf8))
    }

    @Test func readerMayReadButNotWrite() throws {
        let server = try TestServer()
        #expect(try server.put("api.example.com", pinPair()).status == 201)
        let reader = try token(server, "auditor", .reader, nil)
        let c = server.client
        #expect(try c.request("GET", "/admin/hosts/api.example.com", headers: reader).status == 200)
        #expect(try c.request("GET", "/admin/hosts/api.example.com/history", headers: reader).status == 200)
        let denied = try put(server, "api.example.com", reader, seed: 2)
        #expect(denied.status == 403)
        #expect(denied.header("Content-Type") == "application/problem+json")
        let body = try denied.json()
        #expect(body["missingRight"] as? String == "writer")
        #expect((body["detail"] as? String)?.contains("writer role") == true)
        for (method, path) in [
            ("DELETE", "/admin/hosts/api.example.com"), ("POST", "/admin/hosts/api.example.com/pins"),
            ("DELETE", "/admin/hosts/api.example.com/pins/\(Base64URL.encode([UInt8](repeating: 1, count: 32)))"),
        ] {
            #expect(try c.request(method, path, headers: reader, body: Array(#"{"pins":[]}"#.utf8)).status == 403)
        }
        // Nothing changed.
        #expect(
            try c.request("GET", "/admin/hosts/api.example.com", headers: server.auth).json()["version"] as? Int == 1)
    }

    @Test func writerOnAnotherHostIs403NeverA404() throws {
        let server = try TestServer()
        #expect(try server.put("login.example.com", pinPair()).status == 201)
        let payments = try token(server, "payments", .writer, ["pay.example.com"])
        #expect(try put(server, "pay.example.com", payments).status == 201)
        let other = try put(server, "login.example.com", payments, seed: 3)
        #expect(other.status == 403)
        #expect(try other.json()["missingRight"] as? String == "host")
        // An existing and an unknown host outside the scope answer the same: it cannot learn which exist.
        let existing = try server.client.request("GET", "/admin/hosts/login.example.com", headers: payments)
        let unknown = try server.client.request("GET", "/admin/hosts/nothing.example.com", headers: payments)
        #expect(existing.status == 403 && unknown.status == 403)
        #expect(
            try server.client.request("GET", "/admin/hosts/login.example.com/history", headers: payments).status == 403)
        #expect(
            try server.client.request("GET", "/admin/reports?host=login.example.com", headers: payments).status == 403)
        #expect(
            try server.client.request("GET", "/admin/reports?host=pay.example.com", headers: payments).status == 200)
        // A name that merely looks alike is outside too.
        #expect(try server.client.request("GET", "/admin/hosts/pay2.example.com", headers: payments).status == 403)
    }

    @Test func wildcardCoversNamesStrictlyBelow() throws {
        let server = try TestServer()
        let wild = try token(server, "wild", .writer, ["*.example.com"])
        let apex = try put(server, "example.com", wild)
        #expect(apex.status == 403)
        #expect(try apex.json()["missingRight"] as? String == "host")
        #expect(try put(server, "a.example.com", wild).status == 201)
        #expect(try put(server, "a.b.example.com", wild).status == 201)
        #expect(try put(server, "a.b.example.com.", wild, seed: 4).status == 200)
        #expect(try put(server, "A.B.EXAMPLE.COM", wild, seed: 5).status == 200)
        #expect(try put(server, "badexample.com", wild).status == 403)
        #expect(try put(server, "example.com.evil.org", wild).status == 403)
        #expect(try server.client.request("GET", "/admin/hosts/nothere.example.com", headers: wild).status == 404)
    }

    @Test func hostsListingAndReportsShowOnlyTheTokensHosts() throws {
        let server = try TestServer()
        for host in ["login.example.com", "a.pay.example.com", "b.pay.example.com", "pay.example.com"] {
            #expect(try server.put(host, pinPair()).status == 201)
        }
        let reader = try token(server, "pay-reader", .reader, ["*.pay.example.com"])
        let listing = try server.client.request("GET", "/admin/hosts", headers: reader).json()
        let hosts = (listing["hosts"] as? [[String: Any]])?.compactMap { $0["host"] as? String }
        #expect(hosts == ["a.pay.example.com", "b.pay.example.com"])
        let all = try server.client.request("GET", "/admin/hosts", headers: server.auth).json()
        #expect((all["hosts"] as? [[String: Any]])?.count == 4)
        #expect(try server.client.request("GET", "/admin/reports", headers: reader).status == 200)
    }

    @Test func trustDocumentsNeedTheAdminRole() throws {
        let root = try Ed25519SigningKey.generate()
        let server = try TestServer(rootKeys: [root.publicKey])
        let serverKey = try Ed25519SigningKey.load(pemFile: server.keyPath).publicKey
        let v1 = ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root])
        for role in [TokenRole.reader, .writer] {
            let auth = try token(server, "\(role.rawValue)-everywhere", role, nil)
            let denied = try server.client.request("PUT", "/admin/trust", headers: auth, body: v1)
            #expect(denied.status == 403)
            #expect(try denied.json()["missingRight"] as? String == "admin")
        }
        #expect(try server.client.request("GET", "/trust").status == 404)
        let admin = try token(server, "root-admin", .admin, nil)
        #expect(try server.client.request("PUT", "/admin/trust", headers: admin, body: v1).status == 201)
    }

    /// Found by the scoped schemathesis run: an emoji modifier right after '/' joined the '/' into one Character,
    /// so the path did not split and a host route answered an undocumented 404.
    @Test func aCombiningCharacterAfterASlashStillSplitsThePath() throws {
        let server = try TestServer()
        let writer = try token(server, "wild", .writer, ["*.example.com"])
        for auth in [server.auth, writer] {
            let answer = try server.client.request(
                "PUT", "/admin/hosts/%F0%9F%8F%BB", headers: auth, body: Array(pinPair().utf8))
            #expect(answer.status == 400 || answer.status == 403, "\(answer.status) \(answer.text)")
        }
        let match = try #require(RouteTable.match("/admin/hosts/\u{1F3FB}"))
        #expect(match.template == "/admin/hosts/{host}" && match.parameters == ["\u{1F3FB}"])
        let pin = try #require(RouteTable.match("/admin/hosts/a.example/pins/ab/cd"))
        #expect(pin.parameters == ["a.example", "ab/cd"])
    }

    @Test func historyAndLogKeepTheTokenName() throws {
        let server = try TestServer()
        let writer = try token(server, "release-bot", .writer, ["api.example.com"])
        #expect(try put(server, "api.example.com", writer).status == 201)
        let history = try server.client.request("GET", "/admin/hosts/api.example.com/history", headers: writer).json()
        let versions = try #require(history["versions"] as? [[String: Any]])
        #expect(versions.first?["tokenName"] as? String == "release-bot")
    }

    @Test func tokensMadeBeforeScopesKeepEveryRight() throws {
        let server = try TestServer()
        // A row as the v1 schema wrote it: no role, no hosts; the migration's defaults apply.
        let token = "pst_" + Base64URL.encode([UInt8](repeating: 7, count: 32))
        let pool = try DatabasePool(path: server.configuration.databasePath)
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO adminToken (name, hash, createdAt) VALUES ('old', ?, 0)",
                arguments: [Data(SHA256Digest.hash(Array(token.utf8)))])
        }
        try pool.close()
        let caller = try #require(server.app!.service.caller(bearer: token))
        #expect(caller.name == "old" && caller.scope == .full)
        #expect(try put(server, "anything.example.org", ["Authorization": "Bearer \(token)"]).status == 201)
    }

    @Test func scopesRoundTripThroughStorage() throws {
        let server = try TestServer()
        _ = try token(server, "scoped", .writer, ["*.example.com", "api.example.org"])
        let info = try #require(try server.app!.service.listTokens().first { $0.name == "scoped" })
        #expect(info.role == "writer")
        #expect(info.hosts == ["*.example.com", "api.example.org"])
        let encoded = try AdminJSON.encoder.encode(info)
        #expect(try AdminJSON.decoder.decode(TokenInfo.self, from: encoded) == info)
        #expect(
            expectServiceError { try server.app!.service.createToken(name: "none", scope: TokenScope(hosts: [])) }?.code
                == .badRequest)
    }
}

/// The pure pieces: patterns, role order, what a scope lacks.
@Suite(.blocking) struct TokenScopeTests {
    @Test func patterns() throws {
        let exact = try HostPattern("API.Example.com.")
        #expect(
            exact.matches("api.example.com") && !exact.matches("a.api.example.com")
                && exact.description == "api.example.com")
        let wild = try HostPattern("*.example.com")
        #expect(wild.matches("a.example.com") && wild.matches("a.b.example.com"))
        #expect(!wild.matches("example.com") && !wild.matches("badexample.com") && !wild.matches("a.example.com.org"))
        #expect(throws: HostName.Error.self) { try HostPattern("a.*.example.com") }
        #expect(throws: HostName.Error.self) { try HostPattern("*") }
        #expect(throws: HostName.Error.self) { try HostPattern("api.example.com:443") }
    }

    @Test func missingRights() throws {
        let writer = TokenScope(role: .writer, hosts: [try HostPattern("*.example.com")])
        #expect(writer.missing(.requires(.reader, host: "a.example.com")) == nil)
        #expect(writer.missing(.requires(.writer, host: "a.example.com")) == nil)
        #expect(writer.missing(.requires(.writer, host: "example.com")) == .host("example.com"))
        #expect(writer.missing(.admin) == .role(.admin))
        #expect(writer.missing(.requires(.reader)) == nil)
        #expect(TokenScope.full.missing(.admin) == nil)
        #expect(TokenRole.reader < .writer && TokenRole.writer < .admin)
    }
}
