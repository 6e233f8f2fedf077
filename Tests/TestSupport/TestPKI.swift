import Foundation
import NIOSSL
import PinSetClient
import SwiftASN1
import X509

/// A root → intermediate → leaf PKI made in-test with swift-certificates (P-256 keys from the openssl CLI).
public struct TestPKI: Sendable {
    public let rootKey: Certificate.PrivateKey
    public let root: Certificate
    public let intermediateKey: Certificate.PrivateKey
    public let intermediate: Certificate

    public static func makeKey() throws -> (Certificate.PrivateKey, String) {
        let pem = String(
            decoding: try ProcessRunner.checked(
                "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
            as: UTF8.self)
        return (try Certificate.PrivateKey(pemEncoded: pem), pem)
    }

    public init(name: String = "pinset test") throws {
        let now = Date()
        rootKey = try Self.makeKey().0
        let rootName = try DistinguishedName { CommonName("\(name) root") }
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: rootKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: rootName, subject: rootName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: rootKey)
        intermediateKey = try Self.makeKey().0
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: intermediateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: rootName, subject: try DistinguishedName { CommonName("\(name) intermediate") },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: rootKey)
    }

    /// A leaf for `localhost` and 127.0.0.1 signed by the intermediate, with its NIOSSL private key.
    public func makeLeaf() throws -> (certificate: Certificate, key: NIOSSLPrivateKey) {
        let (key, pem) = try Self.makeKey()
        let now = Date()
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(7 * 86_400),
            issuer: intermediate.subject, subject: try DistinguishedName { CommonName("localhost") },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: intermediateKey)
        return (leaf, try NIOSSLPrivateKey(bytes: Array(pem.utf8), format: .pem))
    }
}

extension Certificate {
    /// The DER bytes.
    public var der: [UInt8] { try! serializeAsPEM().derBytes }
    /// As a NIOSSL certificate.
    public var nio: NIOSSLCertificate { try! NIOSSLCertificate(bytes: der, format: .der) }
    /// The SPKI pin (base64 SHA-256 of the DER SubjectPublicKeyInfo).
    public var spkiPin: String { try! SPKIPin.sha256(ofCertificateDER: der) }
}
