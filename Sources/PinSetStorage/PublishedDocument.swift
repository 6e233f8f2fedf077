import Foundation
import OpenSSLCrypto
import PinSetCore

/// One host's current signed document, exactly as `GET /pins/{host}` serves it.
package struct PublishedDocument: Sendable, Hashable {
    /// The normalised host.
    package let host: String
    /// The pin set version inside the document.
    package let version: Int
    /// The serialized JWS (``SignedDocument/serialized``).
    package let body: [UInt8]
    /// The strong ETag: `"` + base64url(first 18 bytes of SHA-256(body)) + `"`.
    package let etag: String
    /// The kid of the key that signed it.
    package let kid: String
    /// When it was signed.
    package let issuedAt: Date
    /// Its freshness limit.
    package let expiresAt: Date

    /// Creates a document record, computing the ETag from `body`.
    package init(host: String, version: Int, body: [UInt8], kid: String, issuedAt: Date, expiresAt: Date) {
        self.host = host
        self.version = version
        self.body = body
        self.etag = Self.etag(for: body)
        self.kid = kid
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// A document record whose ETag was computed when it was signed (read back from storage).
    package init(host: String, version: Int, body: [UInt8], etag: String, kid: String, issuedAt: Date, expiresAt: Date)
    {
        self.host = host
        self.version = version
        self.body = body
        self.etag = etag
        self.kid = kid
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// The strong ETag of a body: `"` + base64url(first 18 bytes of SHA-256(body)) + `"`.
    package static func etag(for body: [UInt8]) -> String {
        ETag.of(sha256: SHA256Digest.hash(body))
    }
}
