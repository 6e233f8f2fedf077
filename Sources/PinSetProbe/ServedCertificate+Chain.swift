import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore

extension ServedCertificate {
    /// The pins of every certificate in a chain (leaf first).
    public static func chain(_ certificates: [ParsedCertificate]) -> [ServedCertificate] {
        certificates.enumerated().map { index, parsed in
            ServedCertificate(
                position: index, subject: parsed.subject, spki: Base64.encode(SHA256Digest.hash(parsed.spkiDER)),
                certificate: Base64.encode(SHA256Digest.hash(parsed.der)))
        }
    }
}
