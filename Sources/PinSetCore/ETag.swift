/// The strong ETag of a served body, the one formula server and clients share: `"` + base64url(first 18 bytes of
/// SHA-256(body)) + `"`. The digest is the caller's (this target has no SHA-256: the server hashes with OpenSSL,
/// the client with swift-crypto).
public enum ETag {
    /// The ETag of a body whose SHA-256 digest is `digest` (32 bytes).
    public static func of(sha256 digest: some Sequence<UInt8>) -> String {
        "\"" + Base64URL.encode(Array(digest.prefix(18))) + "\""
    }
}
