import Foundation

/// Splits PEM text into labelled DER blocks, and recognises bare base64.
enum PEMText {
    struct Block {
        let label: String
        let der: [UInt8]
    }

    static func containsPEM(_ data: [UInt8]) -> Bool {
        String(decoding: data, as: UTF8.self).contains("-----BEGIN ")
    }

    /// Every `-----BEGIN X-----` … `-----END X-----` block, in order. Text outside blocks is ignored.
    static func blocks(_ data: [UInt8]) throws(CryptoError) -> [Block] {
        try blocks(lines: data.allSatisfy { $0 < 0x80 } ? asciiLines(data) : unicodeLines(data))
    }

    /// The lines of ASCII `data` (split at LF, VT, FF and CR), without the spaces and tabs around them: what
    /// ``unicodeLines(_:)`` gives for ASCII, without Foundation's string calls (they were half the CPU of a
    /// junk `POST /reports`, issue 40's B5r).
    private static func asciiLines(_ data: [UInt8]) -> [String] {
        data.split(whereSeparator: { $0 >= 0x0A && $0 <= 0x0D }).map { line in
            var trimmed = line[...]
            while let first = trimmed.first, first == 0x20 || first == 0x09 { trimmed = trimmed.dropFirst() }
            while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
            return String(decoding: trimmed, as: UTF8.self)
        }
    }

    /// The lines of `data` (split at any Unicode newline), each without the whitespace around it.
    private static func unicodeLines(_ data: [UInt8]) -> [String] {
        String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    private static func blocks(lines: [String]) throws(CryptoError) -> [Block] {
        var result = [Block]()
        var label: String?
        var body = ""
        for line in lines {
            if let current = label {
                if line.hasPrefix("-----END ") {
                    guard line == "-----END \(current)-----" else {
                        throw CryptoError(.invalidPEM, "PEM block \(current) ends with a mismatched END line")
                    }
                    guard let der = base64Decode(Array(body.utf8)) else {
                        throw CryptoError(.invalidPEM, "PEM block \(current) does not hold valid base64")
                    }
                    result.append(Block(label: current, der: der))
                    label = nil
                } else if line.utf8.contains(UInt8(ascii: ":")) {  // not Foundation's `contains`: CFStringFind
                    throw CryptoError(.invalidPEM, "PEM block \(current) has headers (encrypted PEM is not supported)")
                } else {
                    body += line
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                label = String(line.dropFirst(11).dropLast(5))
                body = ""
            }
        }
        guard label == nil else { throw CryptoError(.invalidPEM, "PEM block \(label!) has no END line") }
        guard !result.isEmpty else { throw CryptoError(.invalidPEM, "no complete PEM block found") }
        return result
    }

    /// Decodes standard base64 with any ASCII whitespace removed; `nil` if anything else is wrong.
    static func base64Decode(_ data: [UInt8]) -> [UInt8]? {
        let compact = data.filter { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        guard !compact.isEmpty, compact.count % 4 == 0,
            compact.allSatisfy({
                ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B
                    || $0 == 0x2F || $0 == 0x3D
            })
        else { return nil }
        guard let decoded = Data(base64Encoded: Data(compact)) else { return nil }
        return [UInt8](decoded)
    }
}
