import Foundation
import TestSupport
import Testing

/// `pinset token create --role --hosts` (issue 16) against a running server.
@Suite(.blocking) struct TokenScopeCommandTests {
    @Test func scopedTokenFromTheCLIIsEnforcedByTheRunningServer() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        defer { server.stop() }
        let db = dir.appendingPathComponent("db.sqlite").path
        let created = try CLIRunner.pinset([
            "token", "create", "--db", db, "--name", "payments", "--role", "writer", "--hosts", "*.example.com",
            "--hosts", "pay.example.org",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("role writer, hosts *.example.com pay.example.org"))
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        let reader = try CLIRunner.pinset(["token", "create", "--db", db, "--name", "audit", "--role", "reader"])
        let readerToken = try #require(reader.stdout.split(separator: "\n").last.map(String.init))

        let api = LoopbackHTTP(url: server.url)
        let body =
            #"{"pins":[{"sha256":"\#(HostileDocuments.pin())"},{"sha256":"\#(HostileDocuments.pin())","role":"backup"}]}"#
        let apex = try api.request("PUT", "/admin/hosts/example.com", token: token, body: body)
        #expect(apex.status == 403 && apex.body.contains(#""missingRight":"host""#))
        #expect(try api.request("PUT", "/admin/hosts/a.b.example.com", token: token, body: body).status == 201)
        #expect(try api.request("PUT", "/admin/hosts/pay.example.org", token: token, body: body).status == 201)
        let write = try api.request("PUT", "/admin/hosts/a.b.example.com", token: readerToken, body: body)
        #expect(write.status == 403 && write.body.contains(#""missingRight":"writer""#))
        #expect(try api.request("GET", "/admin/hosts/a.b.example.com", token: readerToken).status == 200)

        // The CLI's own admin commands show the 403 detail.
        let show = try CLIRunner.pinset(
            ["show", "login.example.org"], environment: ["PINSET_SERVER": server.url, "PINSET_TOKEN": token])
        #expect(show.status == 1 && show.stderr.contains("may not act on login.example.org"), "\(show.stderr)")

        let list = try CLIRunner.pinset(["token", "list", "--db", db])
        #expect(list.stdout.hasPrefix("name\tcreated\tstate\trole\thosts\n"), "a header row names the columns")
        #expect(list.stdout.contains("payments") && list.stdout.contains("writer\t*.example.com pay.example.org"))
        #expect(list.stdout.contains("admin\t*"))

        let badRole = try CLIRunner.pinset(["token", "create", "--db", db, "--name", "x", "--role", "root"])
        #expect(badRole.status != 0 && badRole.lastErrorLine.contains("is not a role"))
        let badHost = try CLIRunner.pinset(["token", "create", "--db", db, "--name", "y", "--hosts", "a.*.example.com"])
        #expect(badHost.status != 0 && badHost.lastErrorLine.contains("is not a host pattern"))
    }
}
