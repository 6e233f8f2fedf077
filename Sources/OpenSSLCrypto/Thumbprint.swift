/// RFC 7638 thumbprints of Ed25519 keys.
///
/// This target sits below PinSetCore (it wraps a C library and depends on nothing else), so it builds the
/// thumbprint input itself. The bytes are exactly those of PinSetCore's `Ed25519JWK.thumbprintInput(publicKey:)`;
/// a PinSetServer test checks that the two agree.
enum Thumbprint {
    /// base64url(SHA-256(`{"crv":"Ed25519","kty":"OKP","x":"<base64url key>"}`)).
    static func kid(publicKey: [UInt8]) -> String {
        let input = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"\(base64URL(publicKey))\"}"
        return base64URL(SHA256Digest.hash(Array(input.utf8)))
    }

    /// Unpadded base64url (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            if index + 1 < bytes.count { out.append(alphabet[Int(triple >> 6 & 63)]) }
            if index + 2 < bytes.count { out.append(alphabet[Int(triple & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
