import Foundation
import TestSupport
import Testing

/// `pinset serve --next-key` (PROTOCOL §6.3, a planned rotation) and `pinset trust sign --log-key-pub`: the next
/// key in the banner, clear refusals when it cannot work. The rotation itself is PlannedKeyRotationEndToEndTests.
@Suite struct ServeNextKeyTests {
    /// `pinset serve` on a fresh database in `directory`; answers once it stops (a refusal) or after its banner
    /// (then it is stopped).
    func serve(_ arguments: [String], environment: [String: String?] = [:], in directory: URL) throws
        -> CLIRunner.Output
    {
        let process = try ProcessRunner.start(
            CLIRunner.binary,
            ["serve", "--dev", "--db", directory.appendingPathComponent("db.sqlite").path, "--port", "0"] + arguments,
            environment: environment, stdout: .collect, stderr: .collect)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline, !process.stdoutText.contains("admin token") {
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return CLIRunner.Output(status: 0, stdout: process.stdoutText, stderr: process.stderrText)
        }
        process.waitUntilExit()
        return CLIRunner.Output(
            status: process.terminationStatus, stdout: process.stdoutText, stderr: process.stderrText)
    }

    func key(_ name: String, in directory: URL) throws -> String {
        try CLIRunner.shell("openssl genpkey -algorithm ed25519 -out \(name) && chmod 600 \(name)", in: directory)
        return directory.appendingPathComponent(name).path
    }

    @Test func theNextKeyIsInTheBannerAndImpossibleOnesAreRefused() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let current = try key("current.pem", in: directory)
        let next = try key("next.pem", in: directory)
        let started = try serve(["--key", current], environment: ["PINSET_NEXT_KEY": next], in: directory)
        #expect(started.stdout.contains("  next signing key: \(next)"), "\(started.stdout)\(started.stderr)")

        let cases: [([String], String)] = [
            (["--key", current, "--next-key", current], "--next-key is the signing key itself"),
            (["--key", current, "--next-key", directory.appendingPathComponent("missing.pem").path], "missing.pem"),
            (["--key", current, "--next-key", next, "--log-key", next], "must not be the next signing key"),
        ]
        for (arguments, message) in cases {
            let output = try serve(arguments, in: directory)
            #expect(output.status != 0, "\(arguments)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
    }

    @Test func trustSignListsLogKeysFromAVKeyOrAKeyFile() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try key("root.pem", in: directory)
        let signing = try key("signing.pem", in: directory)
        let logKey = try key("log.pem", in: directory)
        let banner = try serve(["--key", signing, "--log-key", logKey, "--log-origin", "pins.test/log"], in: directory)
        let vkey = try #require(
            banner.stdout.split(separator: "\n").first { $0.hasPrefix("  log vkey: ") }?.dropFirst(12))
        let out = directory.appendingPathComponent("trust.json").path
        let signed = try CLIRunner.pinset([
            "trust", "sign", "--root-key", root, "--signing-key-pub", signing, "--log-key-pub", String(vkey),
            "--log-key-pub", logKey, "--version", "1", "--out", out,
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        // The vkey and the key file name the same key: listed once.
        #expect(signed.stdout.contains("logKeys:       1"), "\(signed.stdout)")

        // A vkey whose key ID does not match its key.
        let cosigner = "w.example+01020304+BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g"
        let refused = try CLIRunner.pinset([
            "trust", "sign", "--root-key", root, "--signing-key-pub", signing, "--log-key-pub", cosigner,
            "--version", "1", "--out", out,
        ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--log-key-pub w.example+") && refused.stderr.contains("not a vkey"))
    }
}
