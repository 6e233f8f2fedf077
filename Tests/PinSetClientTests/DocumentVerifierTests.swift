import Crypto
import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// PROTOCOL §5 steps 1–6: every refusal reason with a hand-crafted hostile document, and the previous set stays
/// in force in the trust manager each time.
@Suite(.blocking) struct DocumentVerifierTests {
    let signer = TestSigner()
    let attacker = TestSigner()
    let leaf = testChain[0]

    /// A manager holding a good version-5 set for example.com that pins the test leaf.
    func managerWithGoodSet() -> PinTrustManager {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        let good = makeSet(version: 5, pins: [.spki(leaf), randomPin()])
        guard case .success = manager.accept(signer.sign(good), for: "example.com", now: testNow) else {
            Issue.record("the good document was refused")
            return manager
        }
        return manager
    }

    func expectRefused(_ bytes: [UInt8], _ code: DocumentRejection.Code, host: String = "example.com") {
        let manager = managerWithGoodSet()
        let before = manager.pinSet(for: "example.com")
        let result = manager.accept(bytes, for: host, now: testNow)
        guard case .failure(let rejection) = result else {
            Issue.record("expected \(code), the document was accepted")
            return
        }
        #expect(rejection.code == code, "\(rejection)")
        #expect(rejection.description.hasPrefix("\(code.rawValue): "))
        #expect(manager.pinSet(for: "example.com") == before)
        #expect(manager.acceptedVersion(for: "example.com")?.version == 5)
        let decision = manager.evaluate(chain: [leaf.der], host: "example.com", now: testNow)
        #expect(decision.allowsConnection)
        guard case .trusted = decision else {
            Issue.record("the previous set no longer matches: \(decision)")
            return
        }
    }

    @Test func acceptsAGoodDocumentAndANewerOne() throws {
        let manager = managerWithGoodSet()
        let newer = makeSet(version: 6, pins: [.spki(leaf), randomPin()])
        let result = manager.accept(signer.sign(newer), for: "Example.COM.", now: testNow)
        let document = try result.get()
        #expect(document.kid == signer.kid)
        #expect(document.pinSet.version == 6)
        #expect(manager.acceptedVersion(for: "example.com")?.version == 6)
    }

    @Test func untrustedKey() {
        expectRefused(attacker.sign(makeSet(version: 9)), .unknownKey)
    }

    @Test func trustedKidButSignedByAnotherKey() {
        expectRefused(attacker.sign(makeSet(version: 9), kid: signer.kid), .badSignature)
    }

    @Test func algNone() {
        var document = signer.document(payload: makeSet(version: 9).encodedJSON(), alg: "none")
        document.signature = ""
        expectRefused(document.serialized, .unsupportedAlgorithm)
    }

    /// PROTOCOL §5 step 2: `Ed25519` is RFC 9864's name for the same algorithm and is accepted; other names are not.
    @Test func algEd25519IsAcceptedAndOtherNamesAreNot() throws {
        let manager = managerWithGoodSet()
        let renamed = signer.sign(makeSet(version: 6, pins: [.spki(leaf), randomPin()]), alg: "Ed25519")
        #expect(try manager.accept(renamed, for: "example.com", now: testNow).get().pinSet.version == 6)
        for alg in ["ed25519", "EdDSA ", "Ed448", "ES256"] {
            expectRefused(signer.sign(makeSet(version: 9), alg: alg), .unsupportedAlgorithm)
        }
    }

    @Test func algHS256WithThePublicKeyAsSecret() {
        // The classic confusion attack: an HMAC "signed" with the public key bytes.
        let header = Base64URL.encode(
            Array("{\"alg\":\"HS256\",\"kid\":\"\(signer.kid)\",\"typ\":\"pinset+jws\"}".utf8))
        let payload = Base64URL.encode(makeSet(version: 9).encodedJSON())
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array((header + "." + payload).utf8), using: SymmetricKey(data: signer.trustedKey.rawRepresentation))
        let document = SignedDocument(protected: header, payload: payload, signature: Base64URL.encode(Array(mac)))
        expectRefused(document.serialized, .unsupportedAlgorithm)
    }

    @Test func wrongOrMissingType() {
        expectRefused(signer.sign(makeSet(version: 9), typ: "JWT"), .wrongType)
        expectRefused(signer.sign(makeSet(version: 9), typ: nil), .wrongType)
    }

    @Test func payloadSwappedFromAnotherHost() {
        let other = makeSet(host: "evil.example.net", version: 9)
        expectRefused(signer.sign(other), .hostMismatch)
    }

    @Test func olderVersion() {
        expectRefused(signer.sign(makeSet(version: 4)), .rollback)
    }

    @Test func sameVersionSignedEarlier() {
        expectRefused(signer.sign(makeSet(version: 5, issuedAt: testNow.addingTimeInterval(-3600))), .rollback)
    }

    @Test func expired() {
        let set = makeSet(
            version: 9, issuedAt: testNow.addingTimeInterval(-7200), expiresAt: testNow.addingTimeInterval(-301))
        expectRefused(signer.sign(set), .expired)
    }

    @Test func notYetValid() {
        let set = makeSet(
            version: 9, issuedAt: testNow.addingTimeInterval(301), expiresAt: testNow.addingTimeInterval(86_400))
        expectRefused(signer.sign(set), .notYetValid)
    }

    @Test func skewIsTolerated() throws {
        let verifier = DocumentVerifier(trustedKeys: [signer.trustedKey])
        let early = makeSet(issuedAt: testNow.addingTimeInterval(299))
        let late = makeSet(issuedAt: testNow.addingTimeInterval(-7200), expiresAt: testNow.addingTimeInterval(-299))
        _ = try verifier.verify(signer.sign(early), host: "example.com", now: testNow, lastAccepted: nil).get()
        _ = try verifier.verify(signer.sign(late), host: "example.com", now: testNow, lastAccepted: nil).get()
    }

    @Test func tamperedPayload() {
        var document = signer.document(payload: makeSet(version: 9).encodedJSON())
        let evil = makeSet(version: 9, pins: [randomPin(role: .current), randomPin()])
        document.payload = Base64URL.encode(evil.encodedJSON())
        expectRefused(document.serialized, .badSignature)
    }

    @Test func tamperedSignatureByte() {
        var document = signer.document(payload: makeSet(version: 9).encodedJSON())
        var signature = Base64URL.decode(document.signature)!
        signature[10] ^= 0x01
        document.signature = Base64URL.encode(signature)
        expectRefused(document.serialized, .badSignature)
    }

    @Test func truncated() {
        let bytes = signer.sign(makeSet(version: 9))
        expectRefused(Array(bytes.prefix(bytes.count / 2)), .malformedJSON)
        expectRefused([], .malformedJSON)
        expectRefused(Array("[1,2,3]".utf8), .malformedJSON)
    }

    @Test func tenMegabyteBody() {
        var bytes = signer.sign(makeSet(version: 9))
        bytes += [UInt8](repeating: 0x20, count: 10 * 1024 * 1024)
        expectRefused(bytes, .tooLarge)
    }

    @Test func signedPayloadThatIsNotAPinSet() {
        let document = signer.document(payload: Array("{\"host\":\"example.com\"}".utf8))
        expectRefused(document.serialized, .malformedJSON)
    }

    /// PROTOCOL §5 step 1 (issue 35): a repeated member anywhere, header and payload included, is refused, even
    /// when the signature verifies (parsers disagree on which of two members wins).
    @Test func aRepeatedMemberIsRefusedWhereverItIs() {
        // In the payload: a second "version" after a valid set's members.
        var payload = makeSet(version: 9).encodedJSON()
        payload.removeLast()  // the closing brace
        payload += Array(#","version":1000}"#.utf8)
        expectRefused(signer.document(payload: payload).serialized, .malformedJSON)
        // In the header: "kid" twice (the trusted one last, as Foundation would keep it).
        let body = makeSet(version: 9).encodedJSON()
        let protected = Base64URL.encode(
            Array(#"{"alg":"EdDSA","kid":"other","typ":"pinset+jws","kid":"\#(signer.kid)"}"#.utf8))
        let payloadText = Base64URL.encode(body)
        let signature = try! signer.key.signature(for: Array((protected + "." + payloadText).utf8))
        let header = SignedDocument(protected: protected, payload: payloadText, signature: Base64URL.encode(signature))
        expectRefused(header.serialized, .malformedJSON)
        // In the envelope, with an escaped name: "signature" and "\u0073ignature".
        var envelope = signer.sign(makeSet(version: 9))
        envelope.removeLast()
        envelope += Array(#","\u0073ignature":"AAAA"}"#.utf8)
        expectRefused(envelope, .malformedJSON)
    }

    /// PROTOCOL §5 step 1: at most 65,535 bytes (an entry bundle's limit), so 65,536 are refused.
    @Test func sixtyFiveThousandFiveHundredAndThirtySixBytesAreTooMany() {
        var bytes = signer.sign(makeSet(version: 9))
        bytes += [UInt8](repeating: 0x20, count: 65_536 - bytes.count)
        expectRefused(bytes, .tooLarge)
        bytes.removeLast()
        let manager = managerWithGoodSet()
        #expect((try? manager.accept(bytes, for: "example.com", now: testNow).get()) != nil)
    }

    @Test func minimumVersionForTheCLI() {
        let verifier = DocumentVerifier(trustedKeys: [signer.trustedKey])
        let result = verifier.verify(
            signer.sign(makeSet(version: 3)), host: "example.com", now: testNow, lastAccepted: .minimum(4))
        #expect((try? result.get()) == nil)
        if case .failure(let rejection) = result { #expect(rejection.code == .rollback) }
        let ok = verifier.verify(
            signer.sign(makeSet(version: 4)), host: "example.com", now: testNow, lastAccepted: .minimum(4))
        #expect((try? ok.get()) != nil)
    }

    @Test func otherHeaderAndEnvelopeFormsStillVerify() throws {
        // The exact header and compact body the server writes are recognised directly; any other valid form takes
        // the general JSON path and gives the same answers.
        let verifier = DocumentVerifier(trustedKeys: [signer.trustedKey])
        let payload = Base64URL.encode(makeSet(version: 9).encodedJSON())
        func document(header: String) -> SignedDocument {
            let protected = Base64URL.encode(Array(header.utf8))
            let signature = try! signer.key.signature(for: Array((protected + "." + payload).utf8))
            return SignedDocument(protected: protected, payload: payload, signature: Base64URL.encode(signature))
        }
        let reordered = document(header: #"{"typ":"pinset+jws","kid":"\#(signer.kid)","alg":"EdDSA"}"#)
        let spaced = document(header: #"{ "alg": "EdDSA", "kid": "\#(signer.kid)", "typ": "pinset+jws" }"#)
        for candidate in [reordered, spaced] {
            let pretty =
                #"{ "signature": "\#(candidate.signature)", "payload": "\#(candidate.payload)", "#
                + #""protected": "\#(candidate.protected)" }"#
            for body in [candidate.serialized, Array(pretty.utf8)] {
                let result = verifier.verify(body, host: "example.com", now: testNow, lastAccepted: nil)
                #expect(try result.get().pinSet.version == 9)
            }
        }
        let wrongAlg = document(header: #"{"typ":"pinset+jws","kid":"\#(signer.kid)","alg":"EdDSA "}"#)
        let wrongType = document(header: #"{"typ":"JWT","kid":"\#(signer.kid)","alg":"EdDSA"}"#)
        for (candidate, code) in [(wrongAlg, DocumentRejection.Code.unsupportedAlgorithm), (wrongType, .wrongType)] {
            if case .failure(let rejection) = verifier.verify(
                candidate.serialized, host: "example.com", now: testNow, lastAccepted: nil)
            {
                #expect(rejection.code == code, "\(rejection)")
            } else {
                Issue.record("accepted a header with \(code)")
            }
        }
    }

    @Test func stepsRunInOrder() {
        // Signed by an unknown key AND for another host AND expired: step 2 (unknown key) wins.
        let set = makeSet(
            host: "other.example", version: 1, issuedAt: testNow.addingTimeInterval(-9000),
            expiresAt: testNow.addingTimeInterval(-8000))
        let verifier = DocumentVerifier(trustedKeys: [signer.trustedKey])
        if case .failure(let rejection) = verifier.verify(
            attacker.sign(set), host: "example.com", now: testNow, lastAccepted: .minimum(5))
        {
            #expect(rejection.code == .unknownKey)
        } else {
            Issue.record("accepted")
        }
        // Validly signed, for another host, expired: step 4 (host) before step 5.
        if case .failure(let rejection) = verifier.verify(
            signer.sign(set), host: "example.com", now: testNow, lastAccepted: .minimum(5))
        {
            #expect(rejection.code == .hostMismatch)
        } else {
            Issue.record("accepted")
        }
    }
}
