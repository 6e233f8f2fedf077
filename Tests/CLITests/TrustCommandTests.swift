import Foundation
import TestSupport
import Testing

/// `pinset trust sign/cosign/push/show` and `verify`/`fetch` with root keys, against a real `pinset serve`.
@Suite(.blocking) struct TrustCommandTests {
    @Test func signCosignPushShowVerifyAndFetch() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Offline: two root keys (mode 0600) and their public halves.
        for name in ["root1", "root2"] {
            try CLIRunner.shell(
                "openssl genpkey -algorithm ed25519 -out \(name).pem && chmod 600 \(name).pem && openssl pkey -in \(name).pem -pubout -out \(name).pub",
                in: dir)
        }
        let server = try RunningServer(
            directory: dir, extraArguments: ["--root-pub", dir.appendingPathComponent("root1.pub").path])
        defer { server.stop() }
        try CLIRunner.shell("openssl pkey -in key.pem -pubout -out signing-a.pub", in: dir)
        func pinset(_ arguments: [String]) throws -> CLIRunner.Output {
            try CLIRunner.pinset(arguments, environment: server.environment)
        }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

        // sign (offline: no server options at all) and show.
        let signed = try CLIRunner.pinset([
            "trust", "sign", "--root-key", path("root1.pem"), "--signing-key-pub", path("signing-a.pub"), "--version",
            "1",
            "--expires", "180d", "--out", path("trust-1.json"),
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        let shown = try CLIRunner.pinset(["trust", "show", path("trust-1.json")])
        #expect(shown.stdout.contains("version:       1"))
        #expect(shown.stdout.contains("a root key of this version, signature valid"))

        // push, then show from the server.
        let pushed = try pinset(["trust", "push", path("trust-1.json")])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stdout.contains("pushed trust document version 1"))
        #expect(try pinset(["trust", "show", "--server", server.url]).stdout.contains("version:       1"))

        // A pin set, fetched and verified with the root key only (fetch walks /trust itself).
        let pin = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let backup = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        #expect(try pinset(["set", "api.example", "--pin", pin, "--backup", backup]).status == 0)
        let fetched = try pinset(["fetch", "api.example", "--server", server.url, "--root-pub", path("root1.pub")])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains("trust:             version 1"))
        #expect(fetched.stdout.contains("verified: signed by kid"))

        // v2 adds root2 with threshold 2: refused until root2 co-signs.
        let v2 = try CLIRunner.pinset([
            "trust", "sign", "--root-key", path("root1.pem"), "--next-root-pub", path("root1.pub"), "--next-root-pub",
            path("root2.pub"), "--threshold", "2", "--signing-key-pub", path("signing-a.pub"), "--version", "2",
            "--out",
            path("trust-2.json"),
        ])
        #expect(v2.status == 0, "\(v2.stderr)")
        let early = try pinset(["trust", "push", path("trust-2.json")])
        #expect(early.status == 1)
        #expect(early.lastErrorLine.contains("[rule newRootsDidNotSign]"), "\(early.stderr)")
        let cosigned = try CLIRunner.pinset(["trust", "cosign", path("trust-2.json"), "--root-key", path("root2.pem")])
        #expect(cosigned.status == 0, "\(cosigned.stderr)")
        #expect(try pinset(["trust", "push", path("trust-2.json")]).status == 0)

        // verify walks the given trust documents in order from the root key.
        let document = dir.appendingPathComponent("doc.json")
        let (body, _) = try awaitFetch(server.url + "/pins/api.example")
        try body.write(to: document)
        let verified = try CLIRunner.pinset([
            "verify", document.path, "--host", "api.example", "--root-pub", path("root1.pub"), "--trust",
            path("trust-1.json"), "--trust", path("trust-2.json"),
        ])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("trust:             version 2"))
        let noTrust = try CLIRunner.pinset([
            "verify", document.path, "--host", "api.example", "--root-pub", path("root1.pub"),
        ])
        #expect(noTrust.status == 1)
        #expect(noTrust.lastErrorLine.hasPrefix("Error: refused: unknownKey: "), "\(noTrust.stderr)")
        let skipped = try CLIRunner.pinset([
            "verify", document.path, "--host", "api.example", "--root-pub", path("root1.pub"), "--trust",
            path("trust-2.json"),
        ])
        #expect(skipped.lastErrorLine.hasPrefix("Error: refused: trust: versionNotNext: "), "\(skipped.stderr)")

        // export writes every version and the newest as trust/index.json (what a mirror serves for /trust).
        let exported = try CLIRunner.pinset(["export", "--db", path("db.sqlite"), "--out", path("www")])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("2 trust document(s)"))
        let v1File = FileManager.default.contents(atPath: path("www/trust/1"))
        #expect(v1File == FileManager.default.contents(atPath: path("trust-1.json")))
        #expect(
            FileManager.default.contents(atPath: path("www/trust/index.json"))
                == FileManager.default.contents(atPath: path("www/trust/2")))

        // A push that would drop the server's own signing key is refused.
        try CLIRunner.shell(
            "openssl genpkey -algorithm ed25519 -out other.pem && openssl pkey -in other.pem -pubout -out other.pub",
            in: dir)
        _ = try CLIRunner.pinset([
            "trust", "sign", "--root-key", path("root1.pem"), "--root-key", path("root2.pem"), "--threshold", "2",
            "--signing-key-pub", path("other.pub"), "--version", "3", "--out", path("trust-3.json"),
        ])
        let dropped = try pinset(["trust", "push", path("trust-3.json")])
        #expect(dropped.status == 1)
        #expect(dropped.lastErrorLine.contains("[rule signingKeyNotListed]"), "\(dropped.stderr)")
    }

    @Test func serveReadsRootKeysFromTheEnvironmentAndChecksThem() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["root1", "root2"] {
            try CLIRunner.shell(
                "openssl genpkey -algorithm ed25519 -out \(name).pem && openssl pkey -in \(name).pem -pubout -out \(name).pub",
                in: dir)
        }
        try CLIRunner.shell(
            "openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out ec.pem && openssl pkey -in ec.pem -pubout -out ec.pub",
            in: dir)
        let serve = [
            "serve", "--dev", "--db", dir.appendingPathComponent("db.sqlite").path, "--key",
            dir.appendingPathComponent("key.pem").path, "--port", "0",
        ]
        let roots = "\(dir.appendingPathComponent("root1.pub").path),\(dir.appendingPathComponent("root2.pub").path)"
        let threshold = try CLIRunner.pinset(
            serve, environment: ["PINSET_ROOT_PUB": roots, "PINSET_ROOT_THRESHOLD": "3"])
        #expect(threshold.status == 1)
        #expect(threshold.lastErrorLine.contains("root threshold 3 must be between 1 and"), "\(threshold.stderr)")
        let notEd25519 = try CLIRunner.pinset(serve + ["--root-pub", dir.appendingPathComponent("ec.pub").path])
        #expect(notEd25519.status == 1)
        #expect(notEd25519.lastErrorLine.contains("--root-pub"), "\(notEd25519.stderr)")
    }

    /// A plain GET with curl.
    private func awaitFetch(_ url: String) throws -> (Data, Int) {
        let result = try CLIRunner.run("/usr/bin/curl", ["-sS", url])
        guard result.status == 0 else { throw ShellError(command: "curl \(url)", stderr: result.stderr) }
        return (Data(result.stdout.utf8), 200)
    }
}
