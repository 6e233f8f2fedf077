import Foundation
import Locking
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A swift-log handler that writes one JSON object per line to standard error (`--log-format json`), for Loki,
/// Elasticsearch or Cloud Logging: `time` (RFC 3339 UTC, milliseconds), `level`, `message`, `logger`, then each
/// metadata entry as a field of its own (sorted; one whose name is taken by the four above is written as
/// `metadata.<name>`). A line is written with one `write(2)`, so lines of concurrent threads never interleave.
///
/// - Warning: it writes what callers log; like the text handler it never adds anything of its own. Callers never log
///   a token, a key or a PIN (the JSON log test checks the server's lines).
struct JSONLogHandler: LogHandler {
    /// The `logger` field.
    let label: String
    /// The lowest level written. Default `info`.
    var logLevel: Logger.Level = .info
    /// Metadata added to every line of this handler.
    var metadata: Logger.Metadata = [:]
    /// Metadata read at each line (swift-log's task-local context); none by default.
    var metadataProvider: Logger.MetadataProvider?

    /// Serialises writes of whole lines (stderr is shared by every handler).
    private static let output = Locked(())
    private static let reserved: Set<String> = ["time", "level", "message", "logger"]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        if let error = event.error, fields["error"] == nil { fields["error"] = "\(error)" }
        var line =
            "{\"time\":" + Self.quoted(Self.timestamp(Date())) + ",\"level\":"
            + Self.quoted(event.level.rawValue) + ",\"message\":" + Self.quoted("\(event.message)")
            + ",\"logger\":" + Self.quoted(label)
        for key in fields.keys.sorted() {
            let name = Self.reserved.contains(key) ? "metadata." + key : key
            line += "," + Self.quoted(name) + ":" + Self.json(fields[key]!)
        }
        line += "}\n"
        Self.output.withLock { _ in
            var bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// A metadata value as JSON: a string, an array or an object.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .stringConvertible(let convertible): quoted(convertible.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { quoted($0) + ":" + json(entries[$0]!) }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string: `"`, `\` and control characters escaped, the rest as it is (UTF-8).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `2026-11-28T01:52:07.123Z`.
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}

/// How `pinset serve` writes its log (`--log-format`, `PINSET_LOG_FORMAT`).
enum LogFormat: String, CaseIterable {
    /// swift-log's text lines on standard error: the default, for a terminal.
    case text
    /// One JSON object per line on standard error (``JSONLogHandler``).
    case json

    /// Sends every logger of the process to standard error in this format, at `level` and above. Text lines go
    /// through `text` (the server escapes their control characters there; JSON escapes them itself).
    func bootstrap(level: Logger.Level, text: @escaping @Sendable (StreamLogHandler) -> any LogHandler) {
        switch self {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return text(handler)
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
        }
    }
}
