import Foundation
import TestSupport
import Testing

@testable import PinSetCore

/// The hand-written decoders must accept and refuse exactly what the Foundation-based ones they replaced did.
@Suite(.blocking) struct Base64Tests {
    /// The previous `Base64URL.decode`: map to the standard alphabet, pad, `Data(base64Encoded:)`.
    static func referenceURL(_ text: String) -> [UInt8]? {
        var standard = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// The previous `Base64.decode`.
    static func referenceStandard(_ text: String) -> [UInt8]? {
        guard text.utf8.count % 4 == 0,
            text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x2D && $0 != 0x5F && $0 > 0x20 })
        else { return nil }
        return Data(base64Encoded: text).map { [UInt8]($0) }
    }

    static let alphabet: [String] = ["A", "B", "Q", "z", "0", "9", "-", "_", "+", "/", "=", " ", "é", "\n", "."]

    /// Every string of up to 4 characters over ``alphabet``, then random longer ones.
    static func candidates() -> [String] {
        var all = [""]
        var layer = [""]
        for _ in 1...4 {
            layer = layer.flatMap { prefix in alphabet.map { prefix + $0 } }
            all += layer
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let length = Int.random(in: 5...90, using: &generator)
            all.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator)!.first! }))
        }
        for count in 0..<70 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255) }
            let standard = Data(bytes).base64EncodedString()
            all += [standard, Base64URL.encode(bytes), String(standard.dropLast()), standard + "=", standard + "A="]
        }
        return all
    }

    @Test func base64urlMatchesFoundation() {
        for text in Self.candidates() {
            #expect(Base64URL.decode(text) == Self.referenceURL(text), "\(text.debugDescription)")
            #expect(Base64URL.decode(text[...]) == Self.referenceURL(text), "\(text.debugDescription)")
        }
    }

    @Test func standardBase64MatchesFoundation() {
        for text in Self.candidates() {
            #expect(Base64.decode(text) == Self.referenceStandard(text), "\(text.debugDescription)")
        }
    }

    @Test func roundTrips() {
        for count in 0..<70 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }
}
