import Crypto
import Foundation
import PinSetClient
import PinSetCore
import TestSupport

/// A fixed clock for every test: 2026-09-21T12:00:00Z.
let testNow = Date(timeIntervalSince1970: 1_790_000_000)

/// Signs documents by hand with a fresh Ed25519 key, the way the server does (PROTOCOL §2).
struct TestSigner {
    let key = Curve25519.Signing.PrivateKey()

    var trustedKey: TrustedKey { try! TrustedKey(rawRepresentation: key.publicKey.rawRepresentation) }
    var kid: String { trustedKey.kid }

    /// A flattened JWS over `payload` with a hand-written header.
    func document(payload: [UInt8], alg: String = "EdDSA", typ: String? = "pinset+jws", kid: String? = nil)
        -> SignedDocument
    {
        var header = "{\"alg\":\"\(alg)\",\"kid\":\"\(kid ?? self.kid)\""
        if let typ { header += ",\"typ\":\"\(typ)\"" }
        header += "}"
        let protected = Base64URL.encode(Array(header.utf8))
        let encodedPayload = Base64URL.encode(payload)
        let signature = try! key.signature(for: Array((protected + "." + encodedPayload).utf8))
        return SignedDocument(protected: protected, payload: encodedPayload, signature: Base64URL.encode(signature))
    }

    /// The serialized document for `set`.
    func sign(_ set: PinSet, alg: String = "EdDSA", typ: String? = "pinset+jws", kid: String? = nil) -> [UInt8] {
        document(payload: set.encodedJSON(), alg: alg, typ: typ, kid: kid).serialized
    }
}

/// A pin set for `host` valid around ``testNow``.
func makeSet(
    host: String = "example.com", version: Int = 5, pins: [Pin]? = nil,
    issuedAt: Date = testNow.addingTimeInterval(-60),
    expiresAt: Date = testNow.addingTimeInterval(86_400), includeSubdomains: Bool = false, enforce: Bool = true
) -> PinSet {
    PinSet(
        host: host, version: version, issuedAt: issuedAt, expiresAt: expiresAt, includeSubdomains: includeSubdomains,
        enforce: enforce, pins: pins ?? [randomPin(role: .current), randomPin(role: .backup)])
}

/// A pin of random bytes (matches nothing).
func randomPin(role: PinRole = .backup, type: PinType = .spki, expiresAt: Date? = nil) -> Pin {
    Pin(
        sha256: Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }), type: type, role: role,
        expiresAt: expiresAt)
}

/// A fresh temporary directory.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-client-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `command` with `/bin/sh -c` and returns its standard output; throws when it exits non-zero.
@discardableResult
func shell(_ command: String) throws -> Data {
    try ProcessRunner.shell(command)
}

/// A self-signed certificate made by the openssl CLI, with its DER and the pin the FIELD-NOTES pipeline prints.
struct OpenSSLCertificate {
    let der: [UInt8]
    let opensslSPKIPin: String
    let path: URL

    /// `algorithm`: `rsa`, `p256` or `ed25519`.
    init(algorithm: String, commonName: String, in directory: URL) throws {
        let key = directory.appendingPathComponent("\(commonName).key.pem").path
        let cert = directory.appendingPathComponent("\(commonName).pem")
        let genkey: String
        switch algorithm {
        case "rsa": genkey = "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048"
        case "p256": genkey = "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256"
        default: genkey = "openssl genpkey -algorithm ed25519"
        }
        try shell("\(genkey) -out '\(key)'")
        try shell("openssl req -x509 -new -key '\(key)' -subj '/CN=\(commonName)' -days 30 -out '\(cert.path)'")
        der = [UInt8](try shell("openssl x509 -in '\(cert.path)' -outform der"))
        let pin = try shell(
            "openssl x509 -in '\(cert.path)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
        )
        opensslSPKIPin = String(decoding: pin, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        path = cert
    }
}

/// Three P-256 certificates standing for leaf, intermediate and root (the evaluator does not validate chains,
/// so self-signed ones do), made once per test run.
let testChain: [OpenSSLCertificate] = {
    let directory = try! makeTemporaryDirectory()
    return try! ["leaf", "intermediate", "root"].map {
        try OpenSSLCertificate(algorithm: "p256", commonName: $0, in: directory)
    }
}()

extension Pin {
    /// An SPKI pin for a certificate of ``testChain``.
    static func spki(_ certificate: OpenSSLCertificate, role: PinRole = .current, expiresAt: Date? = nil) -> Pin {
        Pin(sha256: certificate.opensslSPKIPin, type: .spki, role: role, expiresAt: expiresAt)
    }
}
