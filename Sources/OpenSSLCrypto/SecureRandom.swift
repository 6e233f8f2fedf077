internal import COpenSSL

/// Random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`). Traps if the generator cannot deliver:
    /// continuing without randomness would be worse than stopping.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed: \(OpenSSLCall.drainErrors())")
        return out
    }
}
