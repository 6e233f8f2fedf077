import Foundation
import TestSupport
import Testing

/// The transparency log through a static mirror (PROTOCOL §7, issue 24): `pinset serve --log-key`, `pinset export
/// --watch --log-from` into a real nginx, and `pinset log watch` following that nginx. A write for a watched host
/// is reported within two seconds; a second server holding the same log key with another history is reported as a
/// fork, with both checkpoints.
@Suite(.blocking) struct LogMirrorTests {
    /// A server with a transparency log signed by `logKey`, its database in `directory`.
    private static func server(_ directory: URL, logKey: URL) throws -> RunningServer {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try RunningServer(
            directory: directory, extraArguments: ["--log-key", logKey.path, "--log-origin", "pins.test/log"])
    }

    @Test func aWatchedWriteIsReportedThroughTheMirrorAndAForkIsReported() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let logKey = dir.appendingPathComponent("log-key.pem")
        try CLIRunner.shell("umask 077 && openssl genpkey -algorithm ed25519 -out log-key.pem", in: dir)
        let honest = try Self.server(dir.appendingPathComponent("honest"), logKey: logKey)
        defer { honest.stop() }
        let vkey = try #require(honest.logVerifierKey)
        let api = LoopbackHTTP(url: honest.url)
        #expect(
            try api.request("PUT", "/admin/hosts/a.example", token: honest.token, body: ExportWatchTests.body()).status
                == 201)

        let mirror = dir.appendingPathComponent("mirror")
        try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
        let nginx = try Nginx(root: mirror, work: dir)
        defer { nginx.stop() }
        let export = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "export", "--watch", "--db", honest.directory.appendingPathComponent("db.sqlite").path, "--out",
                mirror.path, "--poll-interval", "0.1", "--log-from", honest.url,
            ])
        defer { if export.isRunning { export.terminate(); export.waitUntilExit() } }
        let state = dir.appendingPathComponent("watch.state").path
        let watch = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "log", "watch", nginx.url, "--hosts", "*.example.com,other.example", "--log-key", vkey, "--state",
                state,
                "--interval", "0.1",
            ], stdout: .collect, stderr: .collect)
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }
        // The mirror serves the first document with its proof, byte for byte as the server does.
        #expect(ExportWatchTests.waitUntil(10) { (try? String(contentsOfFile: state, encoding: .utf8)) != nil })
        let served = try api.request("GET", "/pins/a.example/proof")
        #expect(served.status == 200 && served.body.hasPrefix("c2sp.org/tlog-proof@v1\n"))
        #expect(try LoopbackHTTP(url: nginx.url).request("GET", "/pins/a.example/proof").body == served.body)
        #expect(watch.stdoutText == "", "a.example is not watched")

        let start = Date()
        #expect(
            try api.request("PUT", "/admin/hosts/api.example.com", token: honest.token, body: ExportWatchTests.body())
                .status == 201
        )
        let reported = ExportWatchTests.waitUntil(5) { watch.stdoutText.contains(" api.example.com 1 ") }
        let seconds = Date().timeIntervalSince(start)
        print(
            "LogMirrorTests: the write was reported through the mirror \(String(format: "%.2f", seconds)) s after it was sent"
        )
        #expect(reported && seconds < 2, "reported after \(seconds) s: \(watch.stdoutText) \(watch.stderrText)")
        // The new document's proof is on the mirror, byte for byte as the server serves it.
        #expect(
            try LoopbackHTTP(url: nginx.url).request("GET", "/pins/api.example.com/proof").body
                == api.request("GET", "/pins/api.example.com/proof").body)
        let line = watch.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.hasPrefix("1 api.example.com 1 "), "\(line)")
        watch.terminate()
        watch.waitUntilExit()
        let held = try String(contentsOfFile: state, encoding: .utf8)

        // A second server with the same log key and another history, one entry longer: a fork.
        let rogue = try Self.server(dir.appendingPathComponent("rogue"), logKey: logKey)
        defer { rogue.stop() }
        let rogueAPI = LoopbackHTTP(url: rogue.url)
        for host in ["a.example", "api.example.com", "b.example"] {
            #expect(
                try rogueAPI.request("PUT", "/admin/hosts/\(host)", token: rogue.token, body: ExportWatchTests.body())
                    .status == 201
            )
        }
        let fork = try CLIRunner.pinset([
            "log", "watch", rogue.url, "--hosts", "*.example.com", "--log-key", vkey, "--state", state, "--once",
        ])
        #expect(fork.status == 3, "\(fork.stderr)")
        #expect(fork.stdout == "")
        let rogueCheckpoint = try rogueAPI.request("GET", "/log/checkpoint").body
        #expect(fork.stderr.contains("FORK") && fork.stderr.contains(held) && fork.stderr.contains(rogueCheckpoint))
        #expect(try String(contentsOfFile: state, encoding: .utf8) == held)
    }
}
