import Foundation
import Testing

/// `pinset export` writes a static mirror that nginx serves and the client module verifies.
@Suite struct ExportTests {
    @Test func exportIsIdempotentAndServedByNginxVerifiesWithFetch() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        let set = try CLIRunner.pinset(
            ["set", "a.example", "--pin", HostileDocuments.pin(), "--backup", HostileDocuments.pin()],
            environment: server.environment)
        #expect(set.status == 0, "\(set.stderr)")
        let direct = try CLIRunner.run("/usr/bin/curl", ["-s", server.url + "/pins/a.example"]).stdout
        server.stop()

        let db = dir.appendingPathComponent("db.sqlite").path
        let out = dir.appendingPathComponent("mirror")
        let first = try CLIRunner.pinset(["export", "--db", db, "--out", out.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("written 2, unchanged 0"))
        let again = try CLIRunner.pinset(["export", "--db", db, "--out", out.path])
        #expect(again.stdout.contains("written 0, unchanged 2"))
        #expect(try String(contentsOf: out.appendingPathComponent("pins/a.example"), encoding: .utf8) == direct)

        let nginx = try Nginx(root: out, work: dir)
        defer { nginx.stop() }
        let headers = try CLIRunner.run("/usr/bin/curl", ["-sI", nginx.url + "/pins/a.example"]).stdout
        #expect(headers.lowercased().contains("content-type: application/json"))
        let key = dir.appendingPathComponent("key.pem").path
        let fetched = try CLIRunner.pinset(["fetch", "a.example", "--server", nginx.url, "--trust-key", key])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains("host:              a.example"))
        let viaJWKS = try CLIRunner.pinset(
            ["fetch", "a.example", "--server", nginx.url, "--trust-key", out.appendingPathComponent("keys").path])
        #expect(viaJWKS.status == 0, "\(viaJWKS.stderr)")
    }
}
