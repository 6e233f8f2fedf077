import Foundation

/// Base64url without padding (RFC 7515 §2), as every JWS member uses it.
public enum Base64URL {
    /// Encodes bytes as base64url with no `=` padding.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // One pass over the bytes: Foundation's replacingOccurrences (three of them) was 20% of start-up with
        // 100,000 hosts (perf, see BENCHMARKS.md B7).
        let standard = Data(bytes).base64EncodedString()
        var url = [UInt8]()
        url.reserveCapacity(standard.utf8.count)
        for byte in standard.utf8 {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): break
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Decodes unpadded base64url. Returns `nil` for padding, standard-alphabet characters or any other junk.
    ///
    /// Like Foundation's `Data(base64Encoded:)` (which this replaced), the unused low bits of the last character
    /// are not checked.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        // One pass straight from the UTF-8 bytes: building a padded standard-alphabet String scalar by scalar and
        // handing it to Foundation was 20% of a document verification (perf, see BENCHMARKS.md B8).
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(utf8: $0) }) { return decoded }
        return decode(utf8: Array(text.utf8))
    }

    /// Decodes unpadded base64url from its ASCII bytes (the same rules as ``decode(_:)``).
    public static func decode(utf8 text: some Collection<UInt8>) -> [UInt8]? {
        Base64Alphabet.decodeUnpadded(text, character62: UInt8(ascii: "-"), character63: UInt8(ascii: "_"))
    }

    /// The 6-bit value of a base64url character, or 64 for anything else.
    @inline(__always)
    static func sextet(_ byte: UInt8) -> UInt8 {
        Base64Alphabet.sextet(byte, character62: UInt8(ascii: "-"), character63: UInt8(ascii: "_"))
    }
}

/// The decoding both base64 forms share: the alphabets differ only in the characters for 62 and 63.
enum Base64Alphabet {
    /// Decodes characters with no padding; a last group of 2 or 3 characters gives 1 or 2 bytes, and the unused
    /// low bits of its last character are not checked (as `Data(base64Encoded:)` does). `nil` for a character
    /// outside the alphabet or a last group of 1.
    @inline(__always)
    static func decodeUnpadded(_ text: some Collection<UInt8>, character62: UInt8, character63: UInt8) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var pending = 0
        for byte in text {
            let value = sextet(byte, character62: character62, character63: character63)
            guard value < 64 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
        }
        switch pending {
        case 2:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            break
        }
        return output
    }

    /// The 6-bit value of a character, or 64 for anything outside the alphabet.
    @inline(__always)
    static func sextet(_ byte: UInt8, character62: UInt8, character63: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0") &+ 52
        case character62: 62
        case character63: 63
        default: 64
        }
    }
}

/// Standard base64 (with padding), the form of a pin's `sha256` (PROTOCOL §1).
public enum Base64 {
    /// Encodes bytes as standard padded base64.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }

    /// Decodes standard padded base64 strictly: no whitespace, no url-safe alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable(decodeCanonical), let decoded {
            return decoded
        }
        guard text.utf8.count % 4 == 0,
            text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x2D && $0 != 0x5F && $0 > 0x20 })
        else { return nil }
        guard let data = Data(base64Encoded: text) else { return nil }
        return [UInt8](data)
    }

    /// The common form (groups of 4 alphabet characters, at most `==` at the very end) decoded directly, as
    /// `Data(base64Encoded:)` decodes it (unused low bits unchecked); `nil` for anything else, which then goes
    /// through Foundation. Every pin of a document is checked this way (B8).
    static func decodeCanonical(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0, !text.isEmpty else { return nil }
        var padding = 0
        if text[text.count - 1] == UInt8(ascii: "=") { padding = text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1 }
        return Base64Alphabet.decodeUnpadded(
            UnsafeBufferPointer(rebasing: text[..<(text.count - padding)]), character62: UInt8(ascii: "+"),
            character63: UInt8(ascii: "/"))
    }
}
