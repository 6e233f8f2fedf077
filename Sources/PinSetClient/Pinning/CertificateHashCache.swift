#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bounded, two-way set-associative cache from a DER certificate to its SPKI and certificate digests, so a
/// repeated handshake costs a table probe and one `memcmp` per certificate instead of a parse and two SHA-256s.
///
/// The slot comes from the length and the last eight bytes of the DER (the tail of the issuer's signature,
/// which differs between any two certificates); a hit is confirmed by comparing the whole DER, so a crafted
/// collision can only cause a miss, never a wrong digest. Not thread-safe: ``PinTrustManager`` guards it.
struct CertificateHashCache {
    struct Digests {
        /// `nil` when the certificate could not be parsed.
        let spki: Digest32?
        let certificate: Digest32
    }

    struct Entry {
        let der: [UInt8]
        let digests: Digests
    }

    private var slots: [Entry?]
    private let mask: Int

    /// Creates a cache for about `capacity` certificates (rounded up to a power of two, at least 2).
    init(capacity: Int) {
        var size = 2
        while size < capacity { size <<= 1 }
        slots = Array(repeating: nil, count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(for der: [UInt8]) -> Int {
        let count = der.count
        var tail: UInt64 = 0
        if count >= 8 {
            tail = der.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) }
        }
        let mixed = (tail ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & mask & ~1
    }

    @inline(__always)
    private static func same(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { l in
            rhs.withUnsafeBytes { r in
                l.baseAddress == r.baseAddress || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0
            }
        }
    }

    /// The cached digests of `der`, if present.
    @inline(__always)
    func lookup(_ der: [UInt8]) -> Digests? {
        guard !der.isEmpty else { return nil }
        let index = slot(for: der)
        if let entry = slots[index], Self.same(entry.der, der) { return entry.digests }
        if let entry = slots[index + 1], Self.same(entry.der, der) { return entry.digests }
        return nil
    }

    /// Stores an entry, evicting the older of its two slots when both are taken.
    mutating func insert(_ entry: Entry) {
        guard !entry.der.isEmpty else { return }
        let index = slot(for: entry.der)
        if slots[index] == nil || Self.same(slots[index]!.der, entry.der) {
            slots[index] = entry
        } else {
            slots[index + 1] = slots[index]
            slots[index] = entry
        }
    }
}
