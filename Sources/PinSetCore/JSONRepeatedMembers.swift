/// PROTOCOL §5 step 1 and §6.2 step 1: no object in a document, header and payload included, repeats a member
/// name. JSON parsers disagree on which of two repeated members wins (Foundation takes the last, others the first
/// or refuse), so a signed document that repeats one could mean two things; it is refused instead.
public enum JSONRepeatedMembers {
    /// The first member name some object of `json` repeats (compared after unescaping, so `"a"` and `"\u0061"` are
    /// one name), or `nil` when none does. `json` should be valid JSON; this only scans it (its parser refuses what
    /// is malformed).
    public static func first(in json: some Collection<UInt8>) -> String? {
        let bytes = Array(json)
        // One entry per open object or array: the names seen (objects only), and whether a name comes next.
        var stack: [(isObject: Bool, names: Set<[UInt8]>, expectsName: Bool)] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"): stack.append((true, [], true))
            case UInt8(ascii: "["): stack.append((false, [], false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].isObject { stack[last].expectsName = true }
            case UInt8(ascii: "\""):
                let (name, end) = string(bytes, from: index + 1)
                index = end
                if let last = stack.indices.last, stack[last].isObject, stack[last].expectsName {
                    stack[last].expectsName = false
                    guard stack[last].names.insert(name).inserted else {
                        return String(decoding: name, as: UTF8.self)
                    }
                }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// The unescaped bytes of the string starting at `start` (after its opening quote), and the index of its closing
    /// quote (or the end). A lone surrogate cannot be UTF-8: it stays as its escape text, distinct from any name.
    private static func string(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int) {
        var out: [UInt8] = []
        var index = start
        // A high surrogate just written as escape text: where it starts and its value, for a low one right after.
        var high: (at: Int, unit: UInt32)? = nil
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                out.append(bytes[index])
                high = nil
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            guard escape == UInt8(ascii: "u") else {
                let simple: [UInt8: UInt8] = [
                    UInt8(ascii: "b"): 8, UInt8(ascii: "f"): 12, UInt8(ascii: "n"): 10, UInt8(ascii: "r"): 13,
                    UInt8(ascii: "t"): 9,
                ]
                out.append(simple[escape] ?? escape)
                high = nil
                continue
            }
            guard index + 4 <= bytes.count,
                let unit = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
            else { continue }
            index += 4
            if (0xDC00..<0xE000).contains(unit), let pending = high {
                out.removeSubrange(pending.at...)
                let scalar = 0x10000 + ((pending.unit - 0xD800) << 10) + (unit - 0xDC00)
                out += Array(String(Character(Unicode.Scalar(scalar)!)).utf8)
                high = nil
            } else if let scalar = Unicode.Scalar(unit) {
                out += Array(String(Character(scalar)).utf8)
                high = nil
            } else {
                let at = out.count
                out += Array("\\u\(String(unit, radix: 16))".utf8)
                high = (0xD800..<0xDC00).contains(unit) ? (at, unit) : nil
            }
        }
        return (out, index)
    }
}
