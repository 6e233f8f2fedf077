import Crypto
import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetOpenSSL
import PinSetServer

extension FuzzHarness {
    /// Trust version 1 signed by the harness key, naming it as root and signing key; remembered as genuine.
    func trustSeed() -> [UInt8] {
        let publicKey = Array(key.publicKey.rawRepresentation)
        let payload = TrustPayload(
            version: 1, issuedAt: Self.now.addingTimeInterval(-3600), expiresAt: Self.now.addingTimeInterval(86_400),
            rootKeys: [TrustPayload.jwk(publicKey: publicKey, kid: kid)], rootThreshold: 1,
            signingKeys: [TrustPayload.jwk(publicKey: publicKey, kid: kid)])
        var document = TrustDocument(payload: Base64URL.encode(payload.encodedJSON()), signatures: [])
        let protected = Base64URL.encode(TrustDocument.protectedHeader(kid: kid))
        let input = document.signingInput(protected: protected)
        genuineTrust.insert(input)
        let signature = try! key.signature(for: input)
        document.signatures.append(TrustSignature(protected: protected, signature: Base64URL.encode(signature)))
        return document.serialized
    }

    /// The client's and the server's checks of one trust document agree, and accept only what this harness signed.
    func trust(_ data: [UInt8]) throws(FuzzFinding) {
        let publicKey = Array(key.publicKey.rawRepresentation)
        let state = try! TrustState(rootKeys: [TrustedKey(rawRepresentation: publicKey)])
        let client = TrustDocumentVerifier().verifyNext(data, after: state)
        let anchor = try! TrustAnchor(version: 0, rootKeys: [publicKey], rootThreshold: 1, crypto: OpenSSLTrustCrypto())
        let server = TrustRules.verifyNext(data, after: anchor, crypto: OpenSSLTrustCrypto())
        switch (client, server) {
        case (.success(let accepted), .success(let verified)):
            guard accepted.version == verified.payload.version,
                Set(accepted.signingKeys.keys) == Set(verified.signingKeys.keys)
            else { throw FuzzFinding(.trust, "the client and the server accepted different trust states") }
            guard let document = try? TrustDocument.decode(json: data),
                document.signatures.contains(where: {
                    genuineTrust.contains(document.signingInput(protected: $0.protected))
                })
            else { throw FuzzFinding(.trust, "accepted a trust document this harness never signed") }
        case (.failure(let a), .failure(let b)):
            guard a.code == b.code else {
                throw FuzzFinding(.trust, "the client refused with \(a.code), the server with \(b.code)")
            }
        default:
            throw FuzzFinding(.trust, "the client and the server disagree: \(client) vs \(server)")
        }
    }
}
