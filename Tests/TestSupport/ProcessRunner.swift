import Foundation

/// The one process runner of the test targets: runs a program, feeds it standard input, reads standard output
/// and standard error to the end (both at once, so a chatty child never blocks on a full pipe), and waits.
public enum ProcessRunner {
    /// What a finished process left.
    public struct Output: Sendable {
        /// The exit status.
        public var status: Int32
        /// Everything it wrote to standard output.
        public var stdout: Data
        /// Everything it wrote to standard error.
        public var stderr: Data

        /// Standard output as UTF-8 text.
        public var text: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard error as UTF-8 text.
        public var errorText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// A process that exited with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        /// The command line.
        public let command: String
        /// Its exit status.
        public let status: Int32
        /// What it wrote to standard error.
        public let stderr: String

        /// `"<command> exited <status>: <stderr>"`.
        public var description: String { "\(command) exited \(status): \(stderr)" }
    }

    /// Runs `executable` (a path, or a name looked up in `PATH` when it has no `/`) with `arguments`.
    /// - Parameters:
    ///   - environment: variables set on top of this process's environment (a `nil` value removes one).
    ///   - directory: the working directory; default this process's.
    ///   - stdin: written to the child's standard input, which is then closed; default nothing.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], directory: URL? = nil,
        stdin: Data? = nil
    ) throws -> Output {
        let process = Process()
        prepare(process, executable, arguments, environment: environment, directory: directory)
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        let errors = Box()
        let reader = Thread {
            errors.data = err.fileHandleForReading.readDataToEndOfFile()
            errors.done.signal()
        }
        reader.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        errors.done.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: output, stderr: errors.data)
    }

    /// Like ``run(_:_:environment:directory:stdin:)``, but throws ``Failure`` unless the exit status is 0, and
    /// returns standard output.
    @discardableResult
    public static func checked(
        _ executable: String, _ arguments: [String], directory: URL? = nil, stdin: Data? = nil
    ) throws -> Data {
        let output = try run(executable, arguments, directory: directory, stdin: stdin)
        guard output.status == 0 else {
            throw Failure(
                command: ([executable] + arguments).joined(separator: " "), status: output.status,
                stderr: output.errorText)
        }
        return output.stdout
    }

    /// Runs `/bin/sh -c script` (for openssl pipelines); throws ``Failure`` unless it exits 0.
    @discardableResult
    public static func shell(_ script: String, in directory: URL? = nil) throws -> Data {
        try checked("/bin/sh", ["-c", script], directory: directory)
    }

    /// Sets `process` up to run `executable` (a path, or a name looked up in `PATH` when it has no `/`) with
    /// `arguments`, `environment` on top of this process's, in `directory`.
    static func prepare(
        _ process: Process, _ executable: String, _ arguments: [String], environment: [String: String?],
        directory: URL?
    ) {
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        if let directory { process.currentDirectoryURL = directory }
    }

    private final class Box: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }
}

extension ProcessRunner {
    /// Runs `arguments[0]` with the rest as its arguments and returns standard output as text; throws
    /// ``Failure`` unless it exits 0 (`try ProcessRunner.text("openssl", "pkey", "-in", path, "-pubout")`).
    @discardableResult
    public static func text(_ arguments: String...) throws -> String {
        String(decoding: try checked(arguments[0], Array(arguments.dropFirst())), as: UTF8.self)
    }
}
