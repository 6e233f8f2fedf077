import CPKCS11

/// A PKCS#11 attribute template built from Swift values: the bytes of every value sit in one buffer that lives
/// as long as the call that reads it.
struct PKCS11Template {
    private(set) var entries: [(type: CK_ATTRIBUTE_TYPE, value: [UInt8])] = []

    /// Adds an attribute with raw bytes.
    mutating func add(_ type: CK_ATTRIBUTE_TYPE, bytes: [UInt8]) { entries.append((type, bytes)) }

    /// Adds a `CK_BBOOL`.
    mutating func add(_ type: CK_ATTRIBUTE_TYPE, bool: Bool) { entries.append((type, [bool ? 1 : 0])) }

    /// Adds a `CK_ULONG` (object class, key type) in the machine's byte order.
    mutating func add(_ type: CK_ATTRIBUTE_TYPE, ulong: CK_ULONG) {
        entries.append((type, withUnsafeBytes(of: ulong) { Array($0) }))
    }

    /// Calls `body` with a `CK_ATTRIBUTE` array over the values and its count.
    func withAttributes(_ body: (UnsafeMutablePointer<CK_ATTRIBUTE>, CK_ULONG) -> CK_RV) -> CK_RV {
        let total = entries.reduce(0) { $0 + $1.value.count }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 8)
        let attributes = UnsafeMutablePointer<CK_ATTRIBUTE>.allocate(capacity: max(entries.count, 1))
        defer {
            storage.deallocate()
            attributes.deallocate()
        }
        var offset = 0
        for (index, entry) in entries.enumerated() {
            let value = storage + offset
            entry.value.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { value.copyMemory(from: base, byteCount: bytes.count) }
            }
            attributes[index] = CK_ATTRIBUTE(type: entry.type, pValue: value, ulValueLen: CK_ULONG(entry.value.count))
            offset += entry.value.count
        }
        return body(attributes, CK_ULONG(entries.count))
    }
}
