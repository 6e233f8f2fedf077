import Foundation
import TestSupport

/// A real `pinset serve --dev --port 0` subprocess; parses its port and admin token from the banner.
final class RunningServer {
    let process: ChildProcess
    let url: String
    let token: String
    let directory: URL
    /// The log's vkey from the banner, when started with `--log-key`.
    let logVerifierKey: String?

    /// - Parameters:
    ///   - key: the `--key` value; default `key.pem` in `directory` (made by `--dev`).
    ///   - environment: variables set on top of this process's environment (SoftHSM's, the PKCS#11 PIN).
    ///   - stderr: where its log goes; default discarded (``Stream/collect``: read it from `process.stderrText`).
    init(
        directory: URL, extraArguments: [String] = [], key: String? = nil, environment: [String: String] = [:],
        stderr: ChildProcess.Stream = .discard
    ) throws {
        self.directory = directory
        process = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "serve", "--dev", "--db", directory.appendingPathComponent("db.sqlite").path,
                "--key", key ?? directory.appendingPathComponent("key.pem").path, "--port", "0",
            ] + extraArguments, environment: environment, stdout: .pipe, stderr: stderr)
        var lines: [String] = []
        var buffer = Data()
        let handle = process.standardOutput!
        // The banner is 5 lines with --dev on a fresh database (6 with root keys); read until the token line.
        // Two more with --log-key (the log's origin and vkey).
        let bannerLines =
            (extraArguments.contains("--root-pub") ? 6 : 5) + (extraArguments.contains("--log-key") ? 2 : 0)
        while lines.count < bannerLines {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        guard let first = lines.first, let range = first.range(of: "http://") else {
            process.terminate()
            throw ShellError(command: "pinset serve", stderr: "no banner: \(lines)")
        }
        url = String(first[range.lowerBound...])
        token = lines.last ?? ""
        logVerifierKey = lines.first { $0.hasPrefix("  log vkey: ") }.map { String($0.dropFirst("  log vkey: ".count)) }
    }

    /// The environment for admin subcommands.
    var environment: [String: String] { ["PINSET_SERVER": url, "PINSET_TOKEN": token] }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
