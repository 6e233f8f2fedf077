import Foundation

/// Text rules shared by the C2SP formats: standard base64 (RFC 4648 §4, padded), key names, control characters.
enum NoteText {
    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// Strict standard base64: padded, no whitespace.
    static func unbase64(_ text: some StringProtocol) -> [UInt8]? {
        guard text.count % 4 == 0, !text.contains(where: { $0 == "\n" || $0 == " " || $0 == "\r" }) else {
            return nil
        }
        return Data(base64Encoded: String(text)).map { [UInt8]($0) }
    }

    /// A key name: non-empty, no Unicode space, no `+`.
    static func isValidKeyName(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains { $0 == "+" || $0.properties.isWhitespace }
    }

    /// Whether `bytes` are UTF-8 with no control character but newline (signed-note's rule).
    static func isCleanText(_ bytes: [UInt8]) -> Bool {
        // (String(validating:as:) would say it directly, but needs iOS 18 / macOS 15.)
        guard Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes else { return false }
        return !bytes.contains { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }
    }

    /// A decimal with no leading zeroes ("0" for zero), as every C2SP size and index line has it.
    static func decimal(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.count <= 19, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard text == "0" || text.first != "0" else { return nil }
        return Int(text)
    }
}
