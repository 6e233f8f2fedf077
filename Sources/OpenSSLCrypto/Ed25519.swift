internal import COpenSSL

/// Ed25519 signature verification (pure Ed25519, RFC 8032) with OpenSSL.
public enum Ed25519 {
    /// Whether `signature` (64 bytes) is a valid Ed25519 signature of `message` by the raw 32-byte `publicKey`.
    /// Malformed inputs give `false`.
    public static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32 else { return false }
        guard
            let key = publicKey.withUnsafeBufferPointer({
                EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
            })
        else {
            _ = OpenSSLCall.drainErrors()
            return false
        }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else {
            _ = OpenSSLCall.drainErrors()
            return false
        }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(
                    context, sig.baseAddress, sig.count, msg.baseAddress ?? UnsafePointer(sig.baseAddress!), msg.count)
            }
        }
        if result != 1 { _ = OpenSSLCall.drainErrors() }
        return result == 1
    }
}
