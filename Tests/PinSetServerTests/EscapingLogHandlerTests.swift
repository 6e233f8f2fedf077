import Foundation
import Locking
import Logging
import Testing

@testable import PinSetServer

/// Issue 40, item 9: every log line has its control characters escaped, in the message and in every metadata value.
@Suite struct EscapingLogHandlerTests {
    /// A handler that keeps what it is asked to write.
    struct Capture: LogHandler {
        let lines: Locked<[String]>
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.withLock { $0.append("\(event.message) \(fields)") }
        }
    }

    @Test func controlCharactersAreEscapedEverywhere() {
        let lines = Locked<[String]>([])
        var logger = Logger(label: "test") { _ in EscapingLogHandler(Capture(lines: lines)) }
        logger[metadataKey: "peer"] = "a\u{85}b"
        logger.warning(
            "request\nFORGED",
            metadata: [
                "path": "/admin/hosts/a%0A\n2026 critical pinset: FORGED", "raw": "\r\t\u{0}\u{1B}[31m",
                "nested": ["x": "\n"],
                "list": ["\u{2028}"], "slash": "ok\\n",
            ])
        let line = lines.withLock { $0 }.joined()
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        #expect(line.contains(#"request\nFORGED"#))
        #expect(line.contains(#"a%0A\n2026 critical"#))
        #expect(line.contains(#"\r\t\u{0}\u{1b}[31m"#))
        #expect(line.contains(#"\u{2028}"#) && line.contains(#"ok\\n"#) && line.contains(#"a\u{85}b"#))
        #expect(EscapingLogHandler<Capture>.escape("plain text, é") == "plain text, é")
    }
}
