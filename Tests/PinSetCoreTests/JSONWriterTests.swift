import Foundation
import Testing

@testable import PinSetCore

/// ``JSONWriter`` must write exactly what `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` writes.
@Suite struct JSONWriterTests {
    static let reference: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Every ASCII character, a few multi-byte ones and the characters JSON encoders often treat specially.
    static let awkward: String = {
        var text = ""
        for scalar in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        return text + "é😀\u{2028}\u{2029}\u{85}\u{FEFF}/\\\"</script>"
    }()

    static func pin(
        _ byte: UInt8, role: PinRole = .current, type: PinType = .spki, comment: String? = nil,
        expiresAt: Date? = nil
    ) -> Pin {
        Pin(
            sha256: Base64.encode([UInt8](repeating: byte, count: 32)), type: type, role: role,
            expiresAt: expiresAt, comment: comment)
    }

    @Test(arguments: [
        PinSet(
            host: "api.example.com", version: 1, issuedAt: Date(timeIntervalSince1970: 0),
            expiresAt: Date(timeIntervalSince1970: 59), pins: []),
        PinSet(
            host: "a.b", version: Int.max, issuedAt: Date(timeIntervalSince1970: 1_795_000_000.9),
            expiresAt: Date(timeIntervalSince1970: 253_402_300_799), includeSubdomains: true, enforce: false,
            pins: [
                pin(0xFB),
                pin(
                    0xFF, role: .backup, type: .certificate, comment: awkward,
                    expiresAt: Date(timeIntervalSince1970: 1_800_000_000)),
            ],
            reportUri: "https://r.example/x?a=b&c=\"d\"/\\"),
        PinSet(
            host: "x.example", version: 42, issuedAt: Date(timeIntervalSince1970: 951_782_400),
            expiresAt: Date(timeIntervalSince1970: 951_868_799),
            pins: (0..<64).map { pin(UInt8($0), role: $0 % 2 == 0 ? .current : .future, comment: "\($0)") }),
    ])
    func payloadMatchesJSONEncoder(_ set: PinSet) throws {
        #expect(set.encodedJSON() == [UInt8](try Self.reference.encode(set)))
    }

    @Test func stringsIntsAndBoolsMatchJSONEncoder() throws {
        let strings = [Self.awkward, "", "\u{0}", "\\", "\"", String(repeating: "\u{1F}x", count: 100)]
        for text in strings {
            var writer = JSONWriter()
            writer.array([text]) { json, value in json.string(value) }
            #expect(writer.bytes == [UInt8](try Self.reference.encode([text])), "\(text.debugDescription)")
        }
        let ints = [0, 1, -1, 9, 10, -10, 1_234_567_890, Int.max, Int.min]
        var writer = JSONWriter()
        writer.array(ints) { json, value in json.int(value) }
        #expect(writer.bytes == [UInt8](try Self.reference.encode(ints)))
        var bools = JSONWriter()
        bools.object { json in
            json.key("a")
            json.bool(true)
            json.key("b")
            json.bool(false)
            json.key("c")
            json.array([Int]()) { _, _ in }
        }
        #expect(String(decoding: bools.bytes, as: UTF8.self) == #"{"a":true,"b":false,"c":[]}"#)
    }

    @Test func randomStringsMatchJSONEncoder() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<Int.random(in: 0..<40, using: &generator) {
                let scalar =
                    Bool.random(using: &generator)
                    ? Unicode.Scalar(UInt8.random(in: 0..<0x80, using: &generator))
                    : Unicode.Scalar(UInt32.random(in: 0x80..<0xD800, using: &generator))!
                text.unicodeScalars.append(scalar)
            }
            var writer = JSONWriter()
            writer.array([text]) { json, value in json.string(value) }
            #expect(writer.bytes == [UInt8](try Self.reference.encode([text])), "\(text.debugDescription)")
        }
    }
}
