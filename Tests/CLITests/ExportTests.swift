import Foundation
import TestSupport
import Testing

/// `pinset export` writes a static mirror that nginx serves and the client module verifies.
@Suite(.blocking) struct ExportTests {
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

    @Test func theLogAndEachDocumentsProofAreExportedAndServedByNginx() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try CLIRunner.shell("umask 077 && openssl genpkey -algorithm ed25519 -out log-key.pem", in: dir)
        let server = try RunningServer(
            directory: dir, extraArguments: ["--log-key", dir.appendingPathComponent("log-key.pem").path])
        defer { server.stop() }
        let set = try CLIRunner.pinset(
            ["set", "a.example", "--pin", HostileDocuments.pin(), "--backup", HostileDocuments.pin()],
            environment: server.environment)
        #expect(set.status == 0, "\(set.stderr)")
        let db = dir.appendingPathComponent("db.sqlite").path
        let out = dir.appendingPathComponent("mirror")
        let first = try CLIRunner.pinset(["export", "--db", db, "--out", out.path, "--log-from", server.url])
        #expect(first.status == 0 && first.stdout.contains("and the log"), "\(first.stderr)")
        // keys, pins/a.example, its proof, the checkpoint, one partial tile and its bundle.
        #expect(first.stdout.contains("written 6, unchanged 0"), "\(first.stdout)")
        let again = try CLIRunner.pinset(["export", "--db", db, "--out", out.path, "--log-from", server.url])
        #expect(again.stdout.contains("written 0, unchanged"), "\(again.stdout)")

        let nginx = try Nginx(root: out, work: dir)
        defer { nginx.stop() }
        let api = LoopbackHTTP(url: server.url)
        let mirror = LoopbackHTTP(url: nginx.url)
        for path in ["/pins/a.example/proof", "/log/checkpoint", "/log/tile/0/000.p/1", "/log/tile/entries/000.p/1"] {
            let served = try api.request("GET", path)
            let copy = try mirror.request("GET", path)
            #expect(served.status == 200 && copy.body == served.body, "\(path)")
        }
        let proof = dir.appendingPathComponent("a.proof")
        let document = dir.appendingPathComponent("a.json")
        try Data(try mirror.request("GET", "/pins/a.example/proof").body.utf8).write(to: proof)
        try Data(try mirror.request("GET", "/pins/a.example").body.utf8).write(to: document)
        let policy = dir.appendingPathComponent("policy")
        try Data("log \(server.logVerifierKey ?? "")\nquorum none\n".utf8).write(to: policy)
        let verified = try CLIRunner.pinset(
            ["log", "verify", proof.path, "--doc", document.path, "--policy", policy.path])
        #expect(verified.status == 0 && verified.stdout.hasPrefix("ok: entry 0 of pinset/log"), "\(verified.stderr)")

        // A source that serves no proof of the stored document: the document is held back, not written.
        try FileManager.default.removeItem(at: out.appendingPathComponent("proof/pins/a.example"))
        let second = dir.appendingPathComponent("second")
        let held = try CLIRunner.pinset(["export", "--db", db, "--out", second.path, "--log-from", nginx.url])
        #expect(held.status == 0 && held.stdout.contains("held back (no proof of them served yet): pins/a.example"))
        #expect(!FileManager.default.fileExists(atPath: second.appendingPathComponent("pins/a.example").path))
        #expect(FileManager.default.fileExists(atPath: second.appendingPathComponent("log/checkpoint").path))
    }
}
