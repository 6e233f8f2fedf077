/// Byte-level steps shared by the scanners that read JSON without decoding it (``JSONRepeatedMembers``, and
/// `POST /reports`' look at a report's host before it is decoded).
public enum JSONScan {
    /// The index of the quote that closes the string whose contents start at `start`, and whether the string
    /// holds an escape; `nil` when it is not closed.
    public static func stringEnd(_ bytes: [UInt8], from start: Int) -> (close: Int, escaped: Bool)? {
        var index = start
        var escaped = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return (index, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                index += 2
            default: index += 1
            }
        }
        return nil
    }

    /// The first index at or after `start` that is not JSON whitespace (space, tab, LF, CR).
    public static func skipSpace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D
        {
            index += 1
        }
        return index
    }
}
