import Foundation
import TestSupport
import Testing

@testable import OpenSSLCrypto

/// Makes self-signed certificates with the openssl CLI and compares our pins with the FIELD-NOTES pipeline.
@Suite(.blocking) struct CertificateParserTests {
    static let algorithms: [(name: String, keygen: String)] = [
        ("rsa", "-algorithm RSA -pkeyopt rsa_keygen_bits:2048"),
        ("p256", "-algorithm EC -pkeyopt ec_paramgen_curve:P-256"),
        ("ed25519", "-algorithm ed25519"),
    ]

    /// Creates `<name>.pem` (a self-signed certificate) and `<name>.key` in `dir`.
    static func makeCertificate(_ name: String, keygen: String, in dir: URL) throws {
        try Shell.run(
            """
            openssl genpkey \(keygen) -out \(name).key 2>/dev/null && \
            openssl req -x509 -new -key \(name).key -subj "/CN=\(name).example.com/O=Pinset Test" -days 30 -out \(name).pem
            """, in: dir)
    }

    static func cliSPKIPin(_ name: String, in dir: URL) throws -> String {
        Shell.text(
            try Shell.run(
                "openssl x509 -in \(name).pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
                in: dir))
    }

    @Test(arguments: CertificateParserTests.algorithms.map(\.name))
    func spkiAndCertificatePinsMatchTheOpenSSLPipeline(algorithm: String) throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keygen = Self.algorithms.first { $0.name == algorithm }!.keygen
        try Self.makeCertificate(algorithm, keygen: keygen, in: dir)
        let pem = try Shell.read(dir.appendingPathComponent("\(algorithm).pem"))
        let parsed = try CertificateParser.parse(pem)
        #expect(parsed.count == 1)
        let certificate = try #require(parsed.first)
        #expect(
            Data(SHA256Digest.hash(certificate.spkiDER)).base64EncodedString()
                == (try Self.cliSPKIPin(algorithm, in: dir)))
        let cliCertPin = Shell.text(
            try Shell.run(
                "openssl x509 -in \(algorithm).pem -outform der | openssl dgst -sha256 -binary | base64", in: dir))
        #expect(Data(SHA256Digest.hash(certificate.der)).base64EncodedString() == cliCertPin)
        #expect(certificate.subject.contains("CN=\(algorithm).example.com"))

        // The same certificate as raw DER and as base64 DER gives the same result.
        let der = try Shell.run("openssl x509 -in \(algorithm).pem -outform der", in: dir)
        #expect(try CertificateParser.parse(der) == parsed)
        #expect(
            try CertificateParser.parse(Array(Data(der).base64EncodedString(options: .lineLength64Characters).utf8))
                == parsed)

        // The public key alone (PEM and DER) gives the same SPKI.
        let publicPEM = try Shell.run("openssl x509 -in \(algorithm).pem -pubkey -noout", in: dir)
        #expect(try CertificateParser.publicKeySPKI(publicPEM) == certificate.spkiDER)
        let publicDER = try Shell.run("openssl pkey -in \(algorithm).key -pubout -outform der", in: dir)
        #expect(try CertificateParser.publicKeySPKI(publicDER) == certificate.spkiDER)
    }

    @Test func bundleOfThreeParsesToThree() throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, keygen) in Self.algorithms { try Self.makeCertificate(name, keygen: keygen, in: dir) }
        let bundle = try Shell.run("printf 'leading text\\n'; cat rsa.pem p256.pem; echo; cat ed25519.pem", in: dir)
        let parsed = try CertificateParser.parse(bundle)
        #expect(parsed.count == 3)
        #expect(
            parsed.map { Data(SHA256Digest.hash($0.spkiDER)).base64EncodedString() }
                == (try Self.algorithms.map { try Self.cliSPKIPin($0.name, in: dir) }))
    }

    @Test func privateKeyBlockIsRefused() throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeCertificate("ed25519", keygen: "-algorithm ed25519", in: dir)
        let mixed = try Shell.run("cat ed25519.pem ed25519.key", in: dir)
        let error = #expect(throws: CryptoError.self) { try CertificateParser.parse(mixed) }
        #expect(error?.code == .invalidCertificate)
    }

    @Test(arguments: ["hello", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "QUJDRA=="])
    func junkIsRefused(text: String) {
        #expect(throws: CryptoError.self) { try CertificateParser.parse(Array(text.utf8)) }
    }

    @Test func truncatedPEMIsInvalid() {
        let error = #expect(throws: CryptoError.self) {
            try CertificateParser.parse(Array("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8))
        }
        #expect(error?.code == .invalidPEM)
    }

    @Test func publicKeyJunkIsInvalidPEM() {
        let error = #expect(throws: CryptoError.self) { try CertificateParser.publicKeySPKI(Array("nope".utf8)) }
        #expect(error?.code == .invalidPEM)
    }
}
