import Foundation
import TestSupport

/// Runs the built `pinset` binary (and other tools) as subprocesses, on their own threads via Process.
enum CLIRunner {
    /// The package root, from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The built binary the tests exercise.
    static let binary = packageRoot.appendingPathComponent(".build/debug/pinset").path

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var lastErrorLine: String {
            stderr.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        }
    }

    /// Runs `executable` with `arguments` (``ProcessRunner``), without the CLI's server and token variables.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil
    ) throws -> Output {
        var variables: [String: String?] = ["PINSET_TOKEN": nil, "PINSET_SERVER": nil]
        for (key, value) in environment { variables[key] = value }
        let output = try ProcessRunner.run(executable, arguments, environment: variables, stdin: stdin)
        return Output(status: output.status, stdout: output.text, stderr: output.errorText)
    }

    /// Runs the pinset binary.
    static func pinset(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) throws -> Output
    {
        try run(binary, arguments, environment: environment, stdin: stdin)
    }

    /// Runs a shell command line (for openssl pipelines); throws when it fails.
    @discardableResult
    static func shell(_ command: String, in directory: URL) throws -> String {
        let result = try run("/bin/sh", ["-c", "cd '\(directory.path)' && \(command)"])
        guard result.status == 0 else { throw ShellError(command: command, stderr: result.stderr) }
        return result.stdout
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct ShellError: Error, CustomStringConvertible {
    var command: String
    var stderr: String
    var description: String { "\(command) failed: \(stderr)" }
}
