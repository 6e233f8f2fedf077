import Foundation
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 40, item 2: a scoped token learns nothing about hosts outside its scope, through paging either, and may not
/// make a set govern names below its host that it does not cover (`includeSubdomains`).
@Suite(.blocking) struct ScopeTotalTests {
    private func token(_ server: TestServer, _ name: String, _ role: TokenRole, _ hosts: [String]) throws -> [String:
        String]
    {
        let scope = TokenScope(
            role: role, hosts: try hosts.map { text throws(HostName.Error) in try HostPattern(text) })
        return ["Authorization": "Bearer \(try server.app!.service.createToken(name: name, scope: scope))"]
    }

    /// Finding 2: `GET /admin/hosts?limit=1` answered `{"hosts":[],"next":"b.example.com"}` to a token of
    /// `a.example.com` only.
    @Test func pagingNeverNamesAHostOutsideTheScope() throws {
        let server = try TestServer()
        for host in ["a.example.com", "b.example.com", "c.example.com", "d.example.com", "e.example.com"] {
            #expect(try server.put(host, pinPair()).status == 201)
        }
        let auth = try token(server, "a-and-d", .reader, ["a.example.com", "d.example.com"])
        var seen: [String] = []
        var pages = 0
        var after: String? = nil
        repeat {
            let path = "/admin/hosts?limit=1" + (after.map { "&after=\($0)" } ?? "")
            let answer = try server.client.request("GET", path, headers: auth)
            #expect(answer.status == 200)
            #expect(!answer.text.contains("b.example.com") && !answer.text.contains("c.example.com"), "\(answer.text)")
            #expect(!answer.text.contains("e.example.com"), "\(answer.text)")
            let body = try answer.json()
            seen += ((body["hosts"] as? [[String: Any]]) ?? []).compactMap { $0["host"] as? String }
            after = body["next"] as? String
            pages += 1
        } while after != nil && pages < 10
        #expect(seen == ["a.example.com", "d.example.com"])
        // A full-scope token still pages through every host.
        let first = try server.client.request("GET", "/admin/hosts?limit=2", headers: server.auth).json()
        #expect(first["next"] as? String == "b.example.com")
    }

    /// Finding 3: a writer of `a.example.com` could set `includeSubdomains`, governing names it does not cover.
    @Test func includeSubdomainsNeedsAScopeOverTheSubdomains() throws {
        let server = try TestServer()
        let exact = try token(server, "exact", .writer, ["a.example.com"])
        let both = try token(server, "both", .writer, ["a.example.com", "*.a.example.com"])
        let body = Array((String(pinPair().dropLast()) + #","includeSubdomains":true}"#).utf8)
        let denied = try server.client.request("PUT", "/admin/hosts/a.example.com", headers: exact, body: body)
        #expect(denied.status == 403)
        #expect(try denied.json()["missingRight"] as? String == "host")
        #expect(try server.client.request("GET", "/pins/a.example.com").status == 404)
        // Without the flag the exact token writes; with a scope over the subdomains the flag is allowed.
        #expect(
            try server.client.request("PUT", "/admin/hosts/a.example.com", headers: exact, body: Array(pinPair().utf8))
                .status == 201)
        let allowed = try server.client.request("PUT", "/admin/hosts/a.example.com", headers: both, body: body)
        #expect(allowed.status == 200, "\(allowed.text)")
        #expect(
            try server.client.request("GET", "/admin/hosts/a.example.com", headers: both).json()["includeSubdomains"]
                as? Bool == true)
    }
}
