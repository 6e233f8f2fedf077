import Crypto
import Foundation
import PinSetClient
import PinSetCore
import X509

/// The inputs of B8 and B9, made in-process (no files, no network).
enum Fixtures {
    static let now = Date()

    /// A signed document for `example.com` (4 pins) and the key that signed it.
    static func signedDocument(pins: [Pin]) throws -> (bytes: [UInt8], key: Curve25519.Signing.PrivateKey) {
        let key = Curve25519.Signing.PrivateKey()
        let trusted = try TrustedKey(rawRepresentation: key.publicKey.rawRepresentation)
        let set = PinSet(
            host: "example.com", version: 7, issuedAt: now.addingTimeInterval(-60),
            expiresAt: now.addingTimeInterval(86_400), pins: pins)
        let header = #"{"alg":"EdDSA","kid":"\#(trusted.kid)","typ":"pinset+jws"}"#
        let protected = Base64URL.encode(Array(header.utf8))
        let payload = Base64URL.encode(set.encodedJSON())
        let signature = try key.signature(for: Array((protected + "." + payload).utf8))
        let json =
            #"{"protected":"\#(protected)","payload":"\#(payload)","signature":"\#(Base64URL.encode(signature))"}"#
        return (Array(json.utf8), key)
    }

    /// A root → intermediate → leaf chain (P-256), DER, leaf first.
    static func chain() throws -> [[UInt8]] {
        let rootKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let intermediateKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let leafKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let rootName = try DistinguishedName { CommonName("bench root") }
        let intermediateName = try DistinguishedName { CommonName("bench intermediate") }
        let ca = try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) }
        func make(
            _ key: Certificate.PrivateKey, _ subject: DistinguishedName, _ issuer: DistinguishedName,
            _ issuerKey: Certificate.PrivateKey, _ extensions: Certificate.Extensions
        ) throws -> [UInt8] {
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: key.publicKey,
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
                issuer: issuer, subject: subject, extensions: extensions, issuerPrivateKey: issuerKey)
            return try certificate.serializeAsPEM().derBytes
        }
        let root = try make(rootKey, rootName, rootName, rootKey, ca)
        let intermediate = try make(intermediateKey, intermediateName, rootName, rootKey, ca)
        let leaf = try make(
            leafKey, try DistinguishedName { CommonName("example.com") }, intermediateName, intermediateKey,
            try Certificate.Extensions { SubjectAlternativeNames([.dnsName("example.com")]) })
        return [leaf, intermediate, root]
    }

    static func randomPin(_ role: PinRole) -> Pin {
        Pin(sha256: Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }), role: role)
    }

    /// A trust document (PROTOCOL §6.1) version 1, signed by `root`, naming `root` as its root and `delegating`
    /// as its signing key.
    static func trustDocument(root: Curve25519.Signing.PrivateKey, delegating: Curve25519.Signing.PublicKey) throws
        -> [UInt8]
    {
        func jwk(_ key: Curve25519.Signing.PublicKey) -> Ed25519JWK {
            let raw = Array(key.rawRepresentation)
            let kid = Base64URL.encode(SHA256.hash(data: Ed25519JWK.thumbprintInput(publicKey: raw)))
            return TrustPayload.jwk(publicKey: raw, kid: kid)
        }
        let rootJWK = jwk(root.publicKey)
        let payload = TrustPayload(
            version: 1, issuedAt: now.addingTimeInterval(-3600), expiresAt: now.addingTimeInterval(90 * 86_400),
            rootKeys: [rootJWK], rootThreshold: 1, signingKeys: [jwk(delegating)])
        var document = TrustDocument(payload: Base64URL.encode(payload.encodedJSON()), signatures: [])
        let protected = Base64URL.encode(TrustDocument.protectedHeader(kid: rootJWK.kid!))
        let signature = try root.signature(for: document.signingInput(protected: protected))
        document.signatures.append(TrustSignature(protected: protected, signature: Base64URL.encode(signature)))
        return document.serialized
    }
}
