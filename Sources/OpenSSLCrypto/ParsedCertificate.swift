/// One X.509 certificate, reduced to the bytes pinning needs.
public struct ParsedCertificate: Sendable, Hashable {
    /// The whole certificate, DER. A `certificate` pin is SHA-256 of these bytes.
    public let der: [UInt8]
    /// The SubjectPublicKeyInfo exactly as encoded in the certificate, DER (algorithm identifier included).
    /// An `spki` pin is SHA-256 of these bytes.
    public let spkiDER: [UInt8]
    /// The subject name in RFC 2253 form (`CN=example.com,O=Example`), for messages and comments.
    public let subject: String
    /// The end of the validity period, in seconds since 1970 (UTC); `nil` when it cannot be read.
    public let notAfter: Int64?

    /// Creates a parsed certificate from its parts.
    public init(der: [UInt8], spkiDER: [UInt8], subject: String, notAfter: Int64? = nil) {
        self.der = der
        self.spkiDER = spkiDER
        self.subject = subject
        self.notAfter = notAfter
    }
}
