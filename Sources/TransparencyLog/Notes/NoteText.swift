import Foundation
import PinSetCore

/// Text rules shared by the C2SP formats: standard base64 (RFC 4648 §4, padded), key names, control characters,
/// decimals and lines. Parsing works on UTF-8 bytes: the formats are line- and byte-oriented, and `Character`
/// operations (grapheme breaking, slow on the em dash lines) made a proof's parse cost as much as a signature
/// check.
enum NoteText {
    static let newline: UInt8 = 0x0A
    static let space: UInt8 = 0x20

    static func base64(_ bytes: [UInt8]) -> String { Base64.encode(bytes) }

    /// Strict standard base64 (padded, no whitespace, no url-safe alphabet), through PinSetCore's decoder.
    static func unbase64(_ bytes: some Collection<UInt8>) -> [UInt8]? { Base64.decode(string(bytes)) }

    /// ``unbase64(_:)-(Collection<UInt8>)`` of a string.
    static func unbase64(_ text: some StringProtocol) -> [UInt8]? { Base64.decode(String(text)) }

    /// A key name: non-empty, no Unicode space, no `+`.
    static func isValidKeyName(_ name: String) -> Bool {
        guard !name.isEmpty else { return false }
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            return !name.utf8.contains { $0 == 0x2B || $0 == space || (0x09...0x0D).contains($0) }
        }
        return !name.unicodeScalars.contains { $0 == "+" || $0.properties.isWhitespace }
    }

    /// Whether `bytes` are UTF-8 with no control character but newline (signed-note's rule).
    static func isCleanText(_ bytes: [UInt8]) -> Bool {
        guard !bytes.contains(where: { ($0 < 0x20 && $0 != newline) || $0 == 0x7F }) else { return false }
        guard bytes.contains(where: { $0 >= 0x80 }) else { return true }
        // (String(validating:as:) would say it directly, but needs iOS 18 / macOS 15.)
        return Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
    }

    /// A decimal with no leading zeroes ("0" for zero), as every C2SP size and index line has it; `nil` when it
    /// is not one or does not fit an `Int`.
    static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 19, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard bytes.count == 1 || bytes.first != 0x30 else { return nil }
        var value = 0
        for digit in bytes {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(Int(digit - 0x30))
            if overflow || carry { return nil }
            value = sum
        }
        return value
    }

    /// ``decimal(_:)-(Collection<UInt8>)`` of a string's UTF-8.
    static func decimal(_ text: some StringProtocol) -> Int? { decimal(Array(text.utf8)) }

    /// The lines of `bytes` split at each newline, empty ones kept (a trailing newline gives a last empty line).
    static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        bytes.split(separator: newline, omittingEmptySubsequences: false)
    }

    /// The bytes after `prefix`, if `line` starts with it.
    static func after(_ prefix: String, in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let head = Array(prefix.utf8)
        guard line.count >= head.count, line.prefix(head.count).elementsEqual(head) else { return nil }
        return line.dropFirst(head.count)
    }

    static func string(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
