import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process that runs beside a test (a server, a watcher, a TLS host), made by ``ProcessRunner/child(_:_:environment:directory:stdout:stderr:)``
/// so that every test starts its processes through ``ProcessRunner``.
public final class ChildProcess: @unchecked Sendable {
    /// Where a child's output goes.
    public enum Stream {
        /// `/dev/null`.
        case discard
        /// A pipe the test reads (``standardOutput``, ``standardError``).
        case pipe
        /// Collected as text as it arrives (``stdoutText``, ``stderrText``).
        case collect
        /// An open file.
        case file(FileHandle)
        /// Standard error only: the same destination as standard output.
        case sameAsStdout
    }

    private let process = Process()
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""
    /// The read end of standard output, with ``Stream/pipe``.
    public private(set) var standardOutput: FileHandle?
    /// The read end of standard error, with ``Stream/pipe``.
    public private(set) var standardError: FileHandle?

    init(
        _ executable: String, _ arguments: [String], environment: [String: String?], directory: URL?,
        stdout: Stream, stderr: Stream
    ) {
        ProcessRunner.prepare(process, executable, arguments, environment: environment, directory: directory)
        let out = attach(stdout, isError: false, same: nil)
        process.standardOutput = out
        process.standardError = attach(stderr, isError: true, same: out)
    }

    private func attach(_ stream: Stream, isError: Bool, same: Any?) -> Any? {
        switch stream {
        case .discard: return FileHandle.nullDevice
        case .file(let handle): return handle
        case .sameAsStdout: return same
        case .pipe:
            let pipe = Pipe()
            if isError { standardError = pipe.fileHandleForReading } else { standardOutput = pipe.fileHandleForReading }
            return pipe
        case .collect:
            let pipe = Pipe()
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                guard let self else { return }
                lock.withLock { if isError { errText += text } else { outText += text } }
            }
            return pipe
        }
    }

    /// Starts the process.
    public func run() throws { try process.run() }

    /// Its process id.
    public var processIdentifier: Int32 { process.processIdentifier }
    /// Whether it is still running.
    public var isRunning: Bool { process.isRunning }
    /// Its exit status, once it ended.
    public var terminationStatus: Int32 { process.terminationStatus }
    /// Why it ended (an exit or a signal), once it ended.
    public var terminationReason: Process.TerminationReason { process.terminationReason }
    /// Sends SIGTERM.
    public func terminate() { process.terminate() }
    /// Sends `signal` (default SIGKILL: some servers ignore SIGTERM).
    public func kill(_ signal: Int32 = SIGKILL) { sendSignal(process.processIdentifier, signal) }
    /// Waits until it ends.
    public func waitUntilExit() { process.waitUntilExit() }

    /// Standard output so far, with ``Stream/collect``.
    public var stdoutText: String { lock.withLock { outText } }
    /// Standard error so far, with ``Stream/collect``.
    public var stderrText: String { lock.withLock { errText } }

    /// Reads standard output (``Stream/pipe``) until it holds `lines` lines or ends, at most `chunks` reads.
    public func readStdout(lines: Int = 1, chunks: Int = 100) -> String {
        var text = ""
        var reads = 0
        while reads < chunks, text.filter({ $0 == "\n" }).count < lines {
            guard let chunk = standardOutput?.availableData, !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
            reads += 1
        }
        return text
    }
}

extension ProcessRunner {
    /// A child process, not started yet (``ChildProcess/run()``): `executable` (a path, or a name looked up in
    /// `PATH`) with `arguments`, `environment` on top of this process's, in `directory`; its output as `stdout`
    /// and `stderr` say (default: discarded).
    public static func child(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], directory: URL? = nil,
        stdout: ChildProcess.Stream = .discard, stderr: ChildProcess.Stream = .discard
    ) -> ChildProcess {
        ChildProcess(
            executable, arguments, environment: environment, directory: directory, stdout: stdout, stderr: stderr)
    }

    /// A started child process (see ``child(_:_:environment:directory:stdout:stderr:)``).
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], directory: URL? = nil,
        stdout: ChildProcess.Stream = .discard, stderr: ChildProcess.Stream = .discard
    ) throws -> ChildProcess {
        let process = child(
            executable, arguments, environment: environment, directory: directory, stdout: stdout, stderr: stderr)
        try process.run()
        return process
    }
}

/// `kill(2)`, out of ``ChildProcess``, whose own `kill` would hide it.
private func sendSignal(_ pid: Int32, _ signal: Int32) { _ = kill(pid, signal) }
