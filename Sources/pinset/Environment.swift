import Foundation
import PinSetLogServer
import PinSetSigning
import PinSetStorage

/// Reads `PINSET_*` environment fallbacks for flags that were not given: the one place the CLI reads the
/// environment, and the one place it names the settings every command shares, with the library's defaults.
enum Environment {
    /// The value of `name`, `nil` when unset or empty.
    static func value(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func string(_ flag: String?, _ name: String, default value: String) -> String {
        flag ?? self.value(name) ?? value
    }

    /// `--db`, else `PINSET_DB`, else the server's default database.
    static func databasePath(_ flag: String?) -> String {
        string(flag, "PINSET_DB", default: PinDatabase.defaultPath)
    }

    /// `--key`, else `PINSET_KEY`, else the server's default key file.
    static func keyPath(_ flag: String?) -> String {
        string(flag, "PINSET_KEY", default: SignerLoader.defaultKeyPath)
    }

    /// `--next-key`, else `PINSET_NEXT_KEY`; `nil` when neither is given (no planned rotation).
    static func nextKeyPath(_ flag: String?) -> String? {
        flag ?? value("PINSET_NEXT_KEY")
    }

    /// `--log-key`, else `PINSET_LOG_KEY`; `nil` when neither is given (the server keeps no log).
    static func logKeyPath(_ flag: String?) -> String? {
        flag ?? value("PINSET_LOG_KEY")
    }

    /// `--log-origin`, else `PINSET_LOG_ORIGIN`, else ``LogConfiguration/defaultOrigin``.
    static func logOrigin(_ flag: String?) -> String {
        string(flag, "PINSET_LOG_ORIGIN", default: LogConfiguration.defaultOrigin)
    }

    /// The `--witness URL VKEY` values, else `PINSET_WITNESSES` (the same words, separated by blanks).
    static func witnesses(_ flags: [String]) -> [String] {
        flags.isEmpty
            ? string(nil, "PINSET_WITNESSES", default: "").split(whereSeparator: \.isWhitespace).map(String.init)
            : flags
    }

    /// The port `pinset serve` listens on by default, and `pinset health` asks (`PINSET_PORT`, else 8080).
    static func port(_ flag: Int?) throws -> Int { try int(flag, "PINSET_PORT", default: 8080) }

    /// `--server`, else `PINSET_SERVER`, else the local server on the default port.
    static func server(_ flag: String?) -> String {
        string(flag, "PINSET_SERVER", default: "http://127.0.0.1:8080")
    }

    /// The admin token from `PINSET_TOKEN`.
    static var token: String? { value("PINSET_TOKEN") }

    static func int(_ flag: Int?, _ name: String, default value: Int) throws -> Int {
        if let flag { return flag }
        guard let text = self.value(name) else { return value }
        guard let number = Int(text) else { throw CLIError("\(name)=\(text) is not a whole number") }
        return number
    }

    /// Parses a duration like `90`, `90s`, `15m`, `1h` or `14d` into seconds.
    static func duration(_ text: String, name: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value > 0 else {
            throw CLIError("\(name) \"\(text)\" is not a duration; write e.g. 90s, 15m, 1h or 14d")
        }
        return value * scale
    }
}

/// A command-line failure with a message for the user; exits with status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
