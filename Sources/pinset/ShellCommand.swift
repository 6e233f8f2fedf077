import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An operator's hook command (`--exec` of `pinset export --watch` and `pinset log watch`), run with
/// `/bin/sh -c` with extra environment variables and, optionally, bytes on its standard input. Never throws: what
/// happened is in the result, for the caller to log.
struct ShellCommand {
    /// The command line, as given.
    let command: String
    /// Longest it may run before it is killed (and counted as failed).
    var timeout: Double = 600

    /// How a run ended.
    struct Outcome {
        /// Whether it exited 0 in time.
        let succeeded: Bool
        /// `exit N in S s`, `killed after N s`, or why it could not start; then its last 4 KiB of output.
        let summary: String
    }

    /// Runs the command with `environment` added to this process's, `input` on its standard input (none: empty).
    func run(environment: [String: String], input: [UInt8] = []) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        let started = ProcessInfo.processInfo.systemUptime
        do {
            try process.run()
        } catch {
            return Outcome(succeeded: false, summary: "cannot start /bin/sh: \(error)")
        }
        let collected = OutputBox()
        let reader = Thread {
            collected.data = output.fileHandleForReading.readDataToEndOfFile()
            collected.done.signal()
        }
        reader.start()
        // A command that does not read its input must not block us: write on a thread, ignore EPIPE.
        let writer = Thread {
            signal(SIGPIPE, SIG_IGN)
            if !input.isEmpty { try? stdin.fileHandleForWriting.write(contentsOf: Data(input)) }
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        var timedOut = false
        while process.isRunning {
            if ProcessInfo.processInfo.systemUptime - started > timeout {
                timedOut = true
                process.terminate()
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        collected.done.wait()
        let seconds = String(format: "%.2f", ProcessInfo.processInfo.systemUptime - started)
        let text = String(decoding: collected.data.suffix(4096), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let status = timedOut ? "killed after \(Int(timeout)) s" : "exit \(process.terminationStatus) in \(seconds) s"
        return Outcome(
            succeeded: !timedOut && process.terminationStatus == 0,
            summary: status + (text.isEmpty ? "" : "; output:\n\(text)"))
    }
}

/// Output of a command, read on its own thread.
private final class OutputBox: @unchecked Sendable {
    var data = Data()
    let done = DispatchSemaphore(value: 0)
}
