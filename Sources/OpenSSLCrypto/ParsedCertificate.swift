/// One X.509 certificate, reduced to the bytes pinning needs.
public struct ParsedCertificate: Sendable, Hashable {
    /// The whole certificate, DER. A `certificate` pin is SHA-256 of these bytes.
    public let der: [UInt8]
    /// The SubjectPublicKeyInfo exactly as encoded in the certificate, DER (algorithm identifier included).
    /// An `spki` pin is SHA-256 of these bytes.
    public let spkiDER: [UInt8]
    /// The subject name in RFC 2253 form (`CN=example.com,O=Example`), for messages and comments.
    public let subject: String

    /// Creates a parsed certificate from its parts.
    public init(der: [UInt8], spkiDER: [UInt8], subject: String) {
        self.der = der
        self.spkiDER = spkiDER
        self.subject = subject
    }
}
