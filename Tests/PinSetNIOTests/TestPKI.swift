import Foundation
import NIOSSL
import PinSetClient
import SwiftASN1
import X509

/// A root → intermediate → leaf PKI made in-test with swift-certificates (P-256 keys from the openssl CLI).
struct TestPKI {
    let rootKey: Certificate.PrivateKey
    let root: Certificate
    let intermediateKey: Certificate.PrivateKey
    let intermediate: Certificate

    static func makeKey() throws -> (Certificate.PrivateKey, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let pem = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (try Certificate.PrivateKey(pemEncoded: pem), pem)
    }

    init(name: String) throws {
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
    func makeLeaf() throws -> (certificate: Certificate, key: NIOSSLPrivateKey) {
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
    var der: [UInt8] { try! serializeAsPEM().derBytes }
    var nio: NIOSSLCertificate { try! NIOSSLCertificate(bytes: der, format: .der) }
    var spkiPin: String { try! SPKIPin.sha256(ofCertificateDER: der) }
}
