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
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
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
        guard let data = Data(base64Encoded: standard) else { return nil }
        return [UInt8](data)
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
        guard text.utf8.count % 4 == 0,
            text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x2D && $0 != 0x5F && $0 > 0x20 })
        else { return nil }
        guard let data = Data(base64Encoded: text) else { return nil }
        return [UInt8](data)
    }
}
