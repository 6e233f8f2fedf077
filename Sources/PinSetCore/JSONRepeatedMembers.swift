/// Finds an object member name that appears twice in one JSON object. Parsers disagree on such a document
/// (Foundation's `JSONDecoder` keeps the first, Python and JavaScript the last), so a reviewing proxy and the server
/// would read two different requests: `{"pins":[],"pins":[P1,P2]}` (issue 40). Every JSON the server reads is
/// refused (400) when this finds a name; names are compared after their escapes are decoded (`"pins"` and
/// `"\u0070ins"` are the same member).
public enum JSONRepeatedMembers {
    /// The first member name repeated within one object of `json`, or `nil` when there is none. Not a validator:
    /// for bytes that are not JSON it returns `nil` or a name, and the caller's decoder reports the rest. The
    /// nesting is walked with an explicit stack (no recursion), at most `maxDepth` deep (`nil` beyond it).
    public static func first(in json: some Collection<UInt8>, maxDepth: Int = 512) -> String? {
        let bytes = Array(json)
        // One entry per open object or array: the names seen so far (`nil` for an array).
        var stack: [Set<[UInt8]>?] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { return nil }
                stack.append([])
                index += 1
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { return nil }
                stack.append(nil)
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                index += 1
            case UInt8(ascii: "\""):
                guard let (close, _) = JSONScan.stringEnd(bytes, from: index + 1) else { return nil }
                let end = close + 1
                let next = JSONScan.skipSpace(bytes, from: end)
                // A member name is a string in an object followed by `:`; only names are decoded (a value such as
                // a 2 KB certificate is only skipped).
                if next < bytes.count, bytes[next] == UInt8(ascii: ":"), let top = stack.indices.last,
                    stack[top] != nil
                {
                    guard let (name, _) = string(bytes, from: index + 1) else { return nil }
                    // In place: the set is not copied.
                    guard stack[top]!.insert(name).inserted else { return String(decoding: name, as: UTF8.self) }
                }
                index = end
            default:
                index += 1
            }
        }
        return nil
    }

    /// The decoded bytes of the string whose contents start at `start`, and the index after its closing quote.
    private static func string(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int)? {
        var result: [UInt8] = []
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (result, index + 1) }
            guard byte == UInt8(ascii: "\\") else {
                result.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { return nil }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                guard let unit = hex4(bytes, index) else { return nil }
                index += 4
                var scalar = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit), index + 5 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"), let low = hex4(bytes, index + 2),
                    (0xDC00...0xDFFF).contains(low)
                {
                    scalar = 0x10000 + (UInt32(unit) - 0xD800) << 10 + (UInt32(low) - 0xDC00)
                    index += 6
                }
                if let value = Unicode.Scalar(scalar) {
                    result.append(contentsOf: Array(String(value).utf8))
                } else {
                    // A lone surrogate: kept distinct from every scalar by its escape's own spelling.
                    result.append(contentsOf: Array("\\u{\(String(scalar, radix: 16))}".utf8))
                }
            default: result.append(escape)  // \" \\ \/
            }
        }
        return nil
    }

    private static func hex4(_ bytes: [UInt8], _ index: Int) -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
