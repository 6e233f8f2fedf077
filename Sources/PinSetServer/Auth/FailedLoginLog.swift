import Foundation
import Locking
import Logging

/// Logs admin requests refused for want of a valid token (`401`), at most ``linesPerMinute`` lines a minute: a
/// guessing attack shows in the log without filling it. A line names the address, the method, the path and why
/// (no `Authorization`, a malformed one, or a token that is unknown or revoked), never the token sent; the first
/// line after a quiet spell counts the lines left out.
final class FailedLoginLog: Sendable {
    /// The most lines a minute.
    static let linesPerMinute = 10

    private struct Window {
        var start: TimeInterval = -.infinity
        var lines = 0
        var suppressed = 0
    }

    private let window = Locked(Window())
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Records one refused request; logs it unless this minute's lines are spent.
    func record(
        address: String?, method: String, path: String, reason: String,
        now: TimeInterval = ProcessInfo.processInfo.systemUptime
    ) {
        let (log, suppressed): (Bool, Int) = window.withLock { window in
            if now - window.start >= 60 { window = Window(start: now, lines: 0, suppressed: window.suppressed) }
            guard window.lines < Self.linesPerMinute else {
                window.suppressed += 1
                return (false, 0)
            }
            window.lines += 1
            defer { window.suppressed = 0 }
            return (true, window.suppressed)
        }
        guard log else { return }
        var metadata: Logger.Metadata = [
            "address": "\(address ?? "unknown")", "method": "\(method)", "path": "\(path.prefix(200))",
            "reason": "\(reason)",
        ]
        if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
        logger.warning("admin authentication failed", metadata: metadata)
    }
}
