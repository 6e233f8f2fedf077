import Foundation
import NIOSSL
import PinSetClient
import X509

/// A test CA (root → intermediate) made with swift-certificates from openssl-generated P-256 keys, and leaves
/// for `localhost` signed by it.
struct EndToEndPKI {
    let root: Certificate
    let intermediate: Certificate
    private let rootKey: Certificate.PrivateKey
    private let intermediateKey: Certificate.PrivateKey

    static func makeKey() throws -> (Certificate.PrivateKey, String) {
        let pem = try shell("openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256")
        return (try Certificate.PrivateKey(pemEncoded: pem), pem)
    }

    init() throws {
        let now = Date()
        rootKey = try Self.makeKey().0
        let rootName = try DistinguishedName { CommonName("pinset e2e root") }
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
            issuer: rootName, subject: try DistinguishedName { CommonName("pinset e2e intermediate") },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: rootKey)
    }

    /// A fresh key and a `localhost` leaf for it signed by the intermediate.
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
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: intermediateKey)
        return (leaf, try NIOSSLPrivateKey(bytes: Array(pem.utf8), format: .pem))
    }
}

extension Certificate {
    var der: [UInt8] { try! serializeAsPEM().derBytes }
    var nio: NIOSSLCertificate { try! NIOSSLCertificate(bytes: der, format: .der) }
    /// The SPKI pin (base64 SHA-256 of the DER SubjectPublicKeyInfo).
    var spkiPin: String { try! SPKIPin.sha256(ofCertificateDER: der) }
}

/// Runs a command and returns its standard output; throws when it exits non-zero.
@discardableResult
func shell(_ arguments: String...) throws -> String {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw Failed(description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return String(decoding: output, as: UTF8.self)
}
