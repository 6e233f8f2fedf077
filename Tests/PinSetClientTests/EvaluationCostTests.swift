import Crypto
import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// The warm path: a repeated 3-certificate handshake against 4 pins must cost no more than one SHA-256 of the
/// leaf SPKI (checked strictly in release builds; debug builds only print the figures).
@Suite(.blocking) struct EvaluationCostTests {
    @Test func warmEvaluationCostsLessThanOneSPKIHash() throws {
        let signer = TestSigner()
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        // The matching pin is the root's: the worst case for a trusted chain (every certificate is looked at).
        let pins = [
            randomPin(role: .current), randomPin(), randomPin(role: .future), .spki(testChain[2], role: .backup),
        ]
        _ = try manager.accept(signer.sign(makeSet(pins: pins)), for: "example.com", now: testNow).get()
        let chain = testChain.map(\.der)
        let leafSPKI = Array(try SPKIPin.spkiDER(ofCertificateDER: chain[0]))

        let rounds = 20_000
        let coldStart = ContinuousClock.now
        #expect(manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        let cold = ContinuousClock.now - coldStart

        var trusted = 0
        let warmStart = ContinuousClock.now
        for _ in 0..<rounds where manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection {
            trusted += 1
        }
        let warm = (ContinuousClock.now - warmStart) / rounds

        var sink: UInt8 = 0
        let hashStart = ContinuousClock.now
        for _ in 0..<rounds { sink ^= SHA256.hash(data: leafSPKI).withUnsafeBytes { $0[0] } }
        let hash = (ContinuousClock.now - hashStart) / rounds

        #expect(trusted == rounds)
        print(
            "evaluation cost: cold \(cold), warm \(warm) per evaluation, SHA-256 of the leaf SPKI \(hash) (sink \(sink))"
        )
        #expect(warm < cold)
        #if !DEBUG
            #expect(warm <= hash, "warm evaluation \(warm) costs more than one SHA-256 of the leaf SPKI \(hash)")
        #endif
    }
}
