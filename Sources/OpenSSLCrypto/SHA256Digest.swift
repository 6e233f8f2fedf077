internal import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256Digest {
    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = input.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { outRaw in
                EVP_Digest(
                    raw.baseAddress, raw.count, outRaw.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                    EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed: \(OpenSSLCall.drainErrors())")
        return out
    }

    /// Writes the 32-byte SHA-256 digest of `bytes` into `digest` (at least 32 bytes), without allocating: for
    /// hashing many buffers in place (the start-up check of every stored document).
    public static func hash(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= 32, "a SHA-256 digest needs 32 bytes")
        var length: UInt32 = 0
        let ok = EVP_Digest(
            bytes.baseAddress, bytes.count, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
            EVP_sha256(), nil)
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed: \(OpenSSLCall.drainErrors())")
    }
}
