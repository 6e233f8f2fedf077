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

extension Fixtures {
    /// B12's inputs: `document` logged at index 77,777 of a 100,000-entry log, its C2SP tlog-proof (as bytes)
    /// with the log's signature and two witnesses' cosignatures, and a client verifier of a 2-of-2 policy.
    static func loggedDocument(_ document: [UInt8]) throws -> (proof: [UInt8], verifier: LogProofVerifier) {
        let crypto = BenchCrypto()
        let hasher = MerkleHasher(crypto: crypto)
        var hashes = TileHashes()
        for i in 0..<100_000 {
            hashes.append(
                leafHash: i == 77_777 ? hasher.leafHash(document) : hasher.leafHash(Array("entry \(i)".utf8)),
                hasher: hasher)
        }
        func signer(_ name: String, _ type: VerifierKey.SignatureType) throws -> NoteSigner {
            let key = Curve25519.Signing.PrivateKey()
            return NoteSigner(
                key: try VerifierKey(
                    name: name, type: type, publicKey: Array(key.publicKey.rawRepresentation), crypto: crypto),
                sign: { Array(try! key.signature(for: $0)) })
        }
        let log = try signer("pins.example.com/log", .ed25519)
        let witnesses = try [signer("w1.example", .cosignature), signer("w2.example", .cosignature)]
        let tree = MerkleTree(hasher: hasher, reader: hashes.reader(hasher: hasher))
        let text = try Checkpoint(origin: log.key.name, size: 100_000, rootHash: tree.rootHash(size: 100_000)).text
        let note = SignedNote(
            text: text,
            signatures: [log.signature(of: text, timestamp: 0)]
                + witnesses.map { $0.signature(of: text, timestamp: UInt64(now.timeIntervalSince1970)) })
        let proof = LogProof(
            index: 77_777, inclusionProof: try tree.inclusionProof(index: 77_777, size: 100_000), checkpoint: note)
        let policy = """
            log \(log.key)
            witness w1 \(witnesses[0].key)
            witness w2 \(witnesses[1].key)
            group both all w1 w2
            quorum both
            """
        return (proof.bytes, LogProofVerifier(policy: try LogPolicy(parsing: Array(policy.utf8))))
    }
}

/// swift-crypto's SHA-256 and Ed25519, as the client's (internal) adapter has them.
private struct BenchCrypto: TrustCrypto {
    func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    func isValidEd25519Signature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
