import Foundation

extension PinSet {
    /// The payload as the server writes it (``encodedJSON()``: sorted keys, no blanks), read by a direct scan;
    /// `nil` for anything else, which then goes through `JSONDecoder`.
    ///
    /// Exact by construction: a scan is kept only when ``encodedJSON()`` of its result gives back the very bytes
    /// scanned, so it returns the value `JSONDecoder` would, or nothing. It saves the client most of a document
    /// verification's decoding time (B8).
    static func decodeCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> PinSet? {
        var scanner = CanonicalScanner(bytes: bytes)
        guard let set = scanner.pinSet(), scanner.index == bytes.count else { return nil }
        let encoded = set.encodedJSON()
        guard encoded.count == bytes.count, encoded.elementsEqual(bytes) else { return nil }
        return set
    }
}

/// A forward-only reader of the canonical payload form; any surprise answers `nil`.
private struct CanonicalScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func pinSet() -> PinSet? {
        guard literal("{\"enforce\":"), let enforce = bool(), literal(",\"expiresAt\":"), let expiresAt = date(),
            literal(",\"host\":"), let host = string(), literal(",\"includeSubdomains\":"),
            let includeSubdomains = bool(), literal(",\"issuedAt\":"), let issuedAt = date(),
            literal(",\"pins\":["), let pins = pins()
        else { return nil }
        var reportUri: String?
        if literal(",\"reportUri\":") {
            guard let uri = string() else { return nil }
            reportUri = uri
        }
        guard literal(",\"version\":"), let version = int(), literal("}") else { return nil }
        return PinSet(
            host: host, version: version, issuedAt: issuedAt, expiresAt: expiresAt,
            includeSubdomains: includeSubdomains, enforce: enforce, pins: pins, reportUri: reportUri)
    }

    private mutating func pins() -> [Pin]? {
        var pins: [Pin] = []
        if literal("]") { return pins }
        repeat {
            guard literal("{") else { return nil }
            var comment: String?
            var expiresAt: Date?
            if literal("\"comment\":") {
                guard let text = string() else { return nil }
                comment = text
                guard literal(",") else { return nil }
            }
            if literal("\"expiresAt\":") {
                guard let date = date() else { return nil }
                expiresAt = date
                guard literal(",") else { return nil }
            }
            guard literal("\"role\":"), let role = string().flatMap(PinRole.init(rawValue:)),
                literal(",\"sha256\":"), let sha256 = string(), literal(",\"type\":"),
                let type = string().flatMap(PinType.init(rawValue:)), literal("}")
            else { return nil }
            pins.append(Pin(sha256: sha256, type: type, role: role, expiresAt: expiresAt, comment: comment))
        } while literal(",")
        return literal("]") ? pins : nil
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// A string with no escapes and no control characters (anything else is left to `JSONDecoder`).
    private mutating func string() -> String? {
        guard literal("\"") else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    private mutating func date() -> Date? { string().flatMap(RFC3339.parse) }

    private mutating func int() -> Int? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        var value = 0
        var digits = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), digits < 18 {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        return bytes[start] == UInt8(ascii: "-") ? -value : value
    }
}
