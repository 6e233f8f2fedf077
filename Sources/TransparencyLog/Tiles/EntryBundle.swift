/// C2SP tlog-tiles entry bundles: a sequence of entries, each prefixed by its length as a big-endian uint16.
public enum EntryBundle {
    /// The largest entry a bundle can hold.
    public static let maxEntryBytes = Int(UInt16.max)

    /// The bundle of `entries`.
    /// - Throws: ``LogErrorCode/outOfRange`` when an entry is longer than 65,535 bytes.
    public static func encode(_ entries: some Sequence<[UInt8]>) throws(LogError) -> [UInt8] {
        var out: [UInt8] = []
        for entry in entries {
            guard entry.count <= maxEntryBytes else {
                throw LogError(.outOfRange, "an entry of \(entry.count) bytes does not fit a bundle (at most 65535)")
            }
            out.append(UInt8(entry.count >> 8))
            out.append(UInt8(entry.count & 0xFF))
            out.append(contentsOf: entry)
        }
        return out
    }

    /// The entries of a bundle, in order.
    /// - Throws: ``LogErrorCode/malformed`` when a length runs past the end.
    public static func decode(_ bundle: some Collection<UInt8>) throws(LogError) -> [[UInt8]] {
        let bytes = Array(bundle)
        var entries: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            guard at + 2 <= bytes.count else { throw LogError(.malformed, "a truncated length at byte \(at)") }
            let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            at += 2
            guard at + length <= bytes.count else {
                throw LogError(.malformed, "an entry of \(length) bytes runs past the end of the bundle")
            }
            entries.append(Array(bytes[at..<(at + length)]))
            at += length
        }
        return entries
    }
}
