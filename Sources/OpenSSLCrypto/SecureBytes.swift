import COpenSSL

/// Random bytes and constant-time comparison, from OpenSSL.
public enum SecureBytes {
    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`). Traps if the generator cannot deliver:
    /// continuing without randomness would be worse than stopping.
    public static func random(count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed: \(OpenSSLCall.drainErrors())")
        return out
    }

    /// Whether `a` and `b` hold the same bytes, in time that depends only on their lengths (`CRYPTO_memcmp`).
    /// Different lengths compare unequal at once; compare fixed-size digests to hide lengths.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { ra in
            b.withUnsafeBytes { rb in CRYPTO_memcmp(ra.baseAddress, rb.baseAddress, a.count) == 0 }
        }
    }
}
