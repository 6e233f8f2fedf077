import OpenSSLCrypto

/// Checks a stored document's bytes against the hash stored with it: its strong ETag is `"` + base64url(first
/// 18 bytes of SHA-256(body)) + `"` (``PublishedDocument/etag(for:)``), computed when it was signed. A byte
/// changed on disk after that (a damaged page that SQLite's own checks let through) makes them differ.
enum StoredDocumentCheck {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Whether `etag` is the ETag of `body`. Allocates nothing (about 1 µs for a 700-byte body).
    static func matches(body: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer) -> Bool {
        guard etag.count == 26, etag[0] == UInt8(ascii: "\""), etag[25] == UInt8(ascii: "\"") else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            SHA256Digest.hash(body, into: digest)
            // 18 bytes are 6 groups of 3 bytes, 4 base64url characters each, no padding.
            for group in 0..<6 {
                let b0 = UInt32(digest[group * 3])
                let b1 = UInt32(digest[group * 3 + 1])
                let b2 = UInt32(digest[group * 3 + 2])
                let bits = b0 << 16 | b1 << 8 | b2
                for index in 0..<4
                where alphabet[Int((bits >> (18 - 6 * UInt32(index))) & 63)] != etag[1 + group * 4 + index] {
                    return false
                }
            }
            return true
        }
    }

    /// Whether `etag` is the ETag of `body` (a document read back from the database at run time).
    static func matches(body: [UInt8], etag: String) -> Bool {
        var etag = etag
        return etag.withUTF8 { etagBytes in
            body.withUnsafeBytes { matches(body: $0, etag: UnsafeRawBufferPointer(etagBytes)) }
        }
    }
}
