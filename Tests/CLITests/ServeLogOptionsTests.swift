import Foundation
import TestSupport
import Testing

/// `pinset serve`'s transparency-log options (PROTOCOL §7): refused with a clear message when they cannot work;
/// the log's vkey in the banner when they can.
@Suite(.blocking) struct ServeLogOptionsTests {
    /// `pinset serve` on a fresh database in `directory` with `arguments`; answers once it stops (a refusal) or
    /// after its banner (then it is stopped).
    func serve(_ arguments: [String], in directory: URL) throws -> CLIRunner.Output {
        let process = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "serve", "--dev", "--db", directory.appendingPathComponent("db.sqlite").path, "--key",
                directory.appendingPathComponent("key.pem").path, "--port", "0",
            ] + arguments, stdout: .collect, stderr: .collect)
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

    @Test func theBannerGivesTheLogsVKey() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try serve(
            ["--log-key", try key("log.pem", in: directory), "--log-origin", "pins.example.com/log"], in: directory)
        #expect(output.stdout.contains("  transparency log: pins.example.com/log, 0 witness(es)"))
        let line = output.stdout.split(separator: "\n").first { $0.hasPrefix("  log vkey: ") }
        #expect(line?.hasPrefix("  log vkey: pins.example.com/log+") == true)
    }

    @Test func impossibleLogOptionsAreRefusedClearly() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try key("log.pem", in: directory)
        let witness = "w.example+01020304+BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g"
        let cases: [([String], String)] = [
            (["--witness", "http://127.0.0.1:9", witness], "--witness needs a transparency log"),
            (["--log-key", logKey, "--witness", "http://127.0.0.1:9"], "--witness takes two values"),
            (["--log-key", logKey, "--witness", "ftp://x", witness], "not an http(s) URL"),
            (["--log-key", logKey, "--witness", "http://127.0.0.1:9", "nonsense"], "--witness http://127.0.0.1:9"),
            (["--log-key", logKey, "--log-origin", "has space"], "cannot be used for origin"),
            (["--log-key", directory.appendingPathComponent("missing.pem").path], "the log key"),
        ]
        for (arguments, message) in cases {
            let output = try serve(arguments, in: directory)
            #expect(output.status != 0, "\(arguments)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        // A log keeps its origin: the same database under another origin is refused, naming both.
        let first = try serve(["--log-key", logKey, "--log-origin", "one.example/log"], in: directory)
        #expect(first.stdout.contains("transparency log: one.example/log"))
        let renamed = try serve(["--log-key", logKey, "--log-origin", "two.example/log"], in: directory)
        #expect(renamed.status != 0)
        #expect(renamed.stderr.contains("origin is one.example/log"), "\(renamed.stderr)")
        #expect(renamed.stderr.contains("is not the log two.example/log"))
        // The signing key cannot double as the log key.
        let signing = try key("signing.pem", in: directory)
        let same = try CLIRunner.pinset([
            "serve", "--db", directory.appendingPathComponent("other.sqlite").path, "--key", signing, "--port", "0",
            "--log-key", signing,
        ])
        #expect(same.status != 0)
        #expect(same.stderr.contains("must not be the document signing key"))
    }
}
