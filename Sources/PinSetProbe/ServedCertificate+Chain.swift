import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore

extension ServedCertificate {
    /// The pins of every certificate in a DER chain (leaf first); certificates that do not parse are skipped.
    public static func chain(_ der: [[UInt8]]) -> [ServedCertificate] {
        der.enumerated().compactMap { index, bytes in
            guard let parsed = try? CertificateParser.parse(bytes).first else { return nil }
            return ServedCertificate(
                position: index, subject: parsed.subject, spki: Base64.encode(SHA256Digest.hash(parsed.spkiDER)),
                certificate: Base64.encode(SHA256Digest.hash(parsed.der)))
        }
    }
}
