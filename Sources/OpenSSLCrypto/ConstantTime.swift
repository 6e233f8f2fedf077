internal import COpenSSL

/// Comparisons whose time does not depend on the bytes compared, from OpenSSL.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, in time that depends only on their lengths (`CRYPTO_memcmp`).
    /// Different lengths compare unequal at once; compare fixed-size digests to hide lengths.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { ra in
            b.withUnsafeBytes { rb in CRYPTO_memcmp(ra.baseAddress, rb.baseAddress, a.count) == 0 }
        }
    }
}
