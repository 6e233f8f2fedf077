// Client micro-benchmarks B8, B9 (issue 5) and B12 (issue 24). Build in release: `bash bench/client.sh`.
// Prints a markdown table fragment on stdout.
import Crypto
import Foundation
import PinSetClient
import PinSetCore

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "client-init" {  // issue 38: the client's launch cost
    try ClientInit.run(rounds: arguments.count > 2 ? Int(arguments[2]) ?? 21 : 21)
    exit(0)
}
let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 15 : 15
let scale = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1

let chain = try Fixtures.chain()
// The matching pin is the root's: the worst trusted case (every certificate of the chain is looked at).
let pins = [
    Fixtures.randomPin(.current), Fixtures.randomPin(.backup), Fixtures.randomPin(.future),
    Pin(sha256: try SPKIPin.sha256(ofCertificateDER: chain[2]), role: .backup),
]
let (document, signingKey) = try Fixtures.signedDocument(pins: pins)
let trusted = try TrustedKey(rawRepresentation: signingKey.publicKey.rawRepresentation)
let verifier = DocumentVerifier(trustedKeys: [trusted])

// B8: full document verification (PROTOCOL §5 steps 1–6) vs one raw Ed25519 verify of the same signing input.
let parsed = try JSONDecoder().decode([String: String].self, from: Data(document))
let signingInput = Array((parsed["protected"]! + "." + parsed["payload"]!).utf8)
let signature = Base64URL.decode(parsed["signature"]!)!
let publicKey = signingKey.publicKey
guard case .success = verifier.verify(document, host: "example.com", now: Fixtures.now, lastAccepted: nil),
    publicKey.isValidSignature(signature, for: signingInput)
else { fatalError("the benchmark document does not verify") }
let b8 = Measurement.run(
    rounds: rounds, iterations: 400 * scale,
    candidate: {
        if case .success(let d) = verifier.verify(document, host: "example.com", now: Fixtures.now, lastAccepted: nil) {
            return UInt8(truncatingIfNeeded: d.pinSet.version)
        }
        return 0
    },
    baseline: { publicKey.isValidSignature(signature, for: signingInput) ? 1 : 0 })

// B8d: the same, for a client that ships a root key and accepts the signing key through a trust document (§6).
let rootKey = Curve25519.Signing.PrivateKey()
let trustDocument = try Fixtures.trustDocument(root: rootKey, delegating: signingKey.publicKey)
let delegatedVerifier = DocumentVerifier(trustStore: try TrustStore(bundledDocument: trustDocument))
guard case .success = delegatedVerifier.verify(document, host: "example.com", now: Fixtures.now, lastAccepted: nil)
else { fatalError("the benchmark document does not verify through the trust document") }
let b8d = Measurement.run(
    rounds: rounds, iterations: 400 * scale,
    candidate: {
        if case .success(let d) = delegatedVerifier.verify(
            document, host: "example.com", now: Fixtures.now, lastAccepted: nil)
        {
            return UInt8(truncatingIfNeeded: d.pinSet.version)
        }
        return 0
    },
    baseline: { publicKey.isValidSignature(signature, for: signingInput) ? 1 : 0 })

// B9: warm evaluation of a 3-certificate chain against 4 pins vs one SHA-256 of the leaf's SPKI.
let manager = PinTrustManager(verifier: verifier)
guard case .success = manager.accept(document, for: "example.com", now: Fixtures.now),
    manager.evaluate(chain: chain, host: "example.com", now: Fixtures.now).allowsConnection
else { fatalError("the benchmark chain is not trusted") }
let leafSPKI = Array(try SPKIPin.spkiDER(ofCertificateDER: chain[0]))
let b9 = Measurement.run(
    rounds: rounds, iterations: 20_000 * scale,
    candidate: { manager.evaluate(chain: chain, host: "example.com", now: Fixtures.now).allowsConnection ? 1 : 0 },
    baseline: { SHA256.hash(data: leafSPKI).withUnsafeBytes { $0[0] } })

// B12: a document and its transparency-log proof (PROTOCOL §7.4: parse, inclusion, the log's signature, two
// cosignatures, the quorum) vs one raw Ed25519 verify.
let (proofBytes, logVerifier) = try Fixtures.loggedDocument(document)
guard (try? logVerifier.verify(entry: document, proof: LogProof(parsing: proofBytes))) != nil else {
    fatalError("the benchmark proof does not verify")
}
let b12 = Measurement.run(
    rounds: rounds, iterations: 200 * scale,
    candidate: {
        guard let proof = try? LogProof(parsing: proofBytes),
            let verified = try? logVerifier.verify(entry: document, proof: proof)
        else { return 0 }
        return UInt8(truncatingIfNeeded: verified.checkpoint.size)
    },
    baseline: { publicKey.isValidSignature(signature, for: signingInput) ? 1 : 0 })

#if DEBUG
    let mode = "debug build: figures are not meaningful"
#else
    let mode = "release"
#endif
print("<!-- PinSetBench (\(mode)), \(rounds) interleaved rounds; per-op times are medians -->")
print("| Bench | What | Client | Baseline | Ratio median (min–max) | Goal | Result |")
print("| --- | --- | --- | --- | --- | --- | --- |")
print(
    b8.row(id: "B8", what: "verify one document (DocumentVerifier) vs one raw Ed25519 verify (swift-crypto)", goal: 1.5)
)
print(
    b8d.row(
        id: "B8d", what: "the same, signing key delegated by a trust document (root keys, PROTOCOL §6)", goal: 1.5))
print(
    b12.row(
        id: "B12", what: "a document's tlog-proof: inclusion, log signature, 2 cosignatures, vs one raw Ed25519 verify",
        goal: 4.0))
print(b9.row(id: "B9", what: "warm evaluation, 3-cert chain vs 4 pins, vs one SHA-256 of the leaf SPKI", goal: 1.0))
