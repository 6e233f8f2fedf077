import Foundation

/// Reads `PINSET_*` environment fallbacks for flags that were not given.
enum Environment {
    static func string(_ flag: String?, _ name: String, default value: String) -> String {
        flag ?? ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? value
    }

    static func int(_ flag: Int?, _ name: String, default value: Int) throws -> Int {
        if let flag { return flag }
        guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return value }
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
