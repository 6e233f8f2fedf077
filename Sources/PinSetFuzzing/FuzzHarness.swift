import Crypto
import Foundation
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetClient
import PinSetCore
import PinSetServer

/// One fuzz target per parser that reads untrusted bytes, with the property each must hold (issue 6 item 6).
///
/// The first input byte picks the target (modulo the number of targets); the rest is the data. Every target must
/// return without crashing; several also check an oracle and report a ``FuzzFinding`` when it fails:
/// - ``Target/document``: the client's ``DocumentVerifier`` on raw bytes. Accepted ⇒ the signed header and
///   payload are ones this harness signed itself (nothing else can carry a valid signature).
/// - ``Target/signedParts``: header and payload (split at the first NUL byte) signed with the trusted key, then
///   verified. Accepted ⇒ every rule of PROTOCOL §5 holds when re-checked independently here.
/// - ``Target/payload``: ``PinSet/decode(json:)``. Decoded ⇒ encoding and decoding again gives the same set.
/// - ``Target/adminSet`` / ``Target/adminPins``: the admin API's JSON bodies, and any certificate they carry
///   through OpenSSL's parser.
/// - ``Target/certificate``: ``CertificateParser`` (PEM, DER, bundles) as `pinset pin` and certificate pins use it.
/// - ``Target/report``: a TrustKit failure report as `POST /reports` decodes it.
/// - ``Target/hostName``: ``HostName/normalize(_:)``. Normalised ⇒ normalising again changes nothing.
/// - ``Target/base64url``: ``Base64URL/decode(utf8:)`` against a reference built on Foundation's decoder.
/// - ``Target/trust``: a trust document (PROTOCOL §6) checked by the client (swift-crypto) and by the server's
///   rules (OpenSSL) from the harness key as root: both give the same outcome, and accepted ⇒ this harness signed it.
/// - ``Target/tlog``: the transparency-log parsers (notes, checkpoints, tlog-proofs, witness requests, policies,
///   entry bundles) round-trip, and Merkle proofs of any shape verify or not without trapping.
///
/// ``Target/document`` also compares the hand-written fast paths with the general ones they stand in for:
/// ``SignedDocument/decode(json:)`` against `JSONDecoder`, and base64url decoding of each member.
public final class FuzzHarness: @unchecked Sendable {
    /// The parsers under test.
    public enum Target: UInt8, CaseIterable, Sendable {
        case document, signedParts, payload, adminSet, adminPins, certificate, report, hostName, base64url, trust, tlog
    }

    /// The host every document is verified for.
    public static let host = "fuzz.example.com"
    /// `JSONEncoder` as the protocol's reference encoding: the oracle ``JSONWriter``'s payload bytes must match.
    static let referenceEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    /// The verifier's clock: a fixed instant, so runs are reproducible.
    public static let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// The version floor given to the verifier in ``Target/signedParts``.
    public static let floor = AcceptedVersion(version: 3, issuedAt: Date(timeIntervalSince1970: 1_794_000_000))
    /// A real certificate, for the admin and certificate seeds.
    public static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBijCCATGgAwIBAgIUVoh+JWZqw6YuJMxIY0yaGkOV6MgwCgYIKoZIzj0EAwIw
        GzEZMBcGA1UEAwwQZnV6ei5leGFtcGxlLmNvbTAeFw0yNjExMjExOTQ4MDBaFw0z
        NjExMTgxOTQ4MDBaMBsxGTAXBgNVBAMMEGZ1enouZXhhbXBsZS5jb20wWTATBgcq
        hkjOPQIBBggqhkjOPQMBBwNCAARkVpIn66foNqAk1YRYU/cfwwhtyRIQxsQHsKMj
        D6Bxq2OxwRTlsb8jbXq0kxAHo7nFsixxlrtYSjSXOwjfU551o1MwUTAdBgNVHQ4E
        FgQUWkHHAxcLFULggS78h09zWxOkHFAwHwYDVR0jBBgwFoAUWkHHAxcLFULggS78
        h09zWxOkHFAwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAl9IPK
        AM8w9eDSgf9paAPsfsFFsm9WOAQQX2D0o8f6IQIgEKZy7EBt1/+DPc1KMfq2bWNa
        eKivMF40nJnm966vwWs=
        -----END CERTIFICATE-----
        """

    let key: Curve25519.Signing.PrivateKey
    /// The trusted key's RFC 7638 thumbprint.
    public let kid: String
    let verifier: DocumentVerifier
    /// `protected + "." + payload` of every document this harness signed: the only ones allowed to pass.
    private var genuine: Set<[UInt8]> = []
    /// `protected + "." + payload` of every trust document signature this harness made.
    var genuineTrust: Set<[UInt8]> = []
    /// How often each verifier outcome was reached (`accepted` or a ``DocumentRejectionCode``): shows how deep
    /// the inputs get.
    public private(set) var outcomes: [String: Int] = [:]
    /// The verifier outcome of the last input, `nil` for targets without a verifier.
    public private(set) var lastOutcome: String?

    /// Creates the harness with a fixed signing key (so corpora stay valid across runs).
    public init() {
        key = try! Curve25519.Signing.PrivateKey(rawRepresentation: (0..<32).map { UInt8($0 &* 7 &+ 1) })
        let publicKey = Array(key.publicKey.rawRepresentation)
        kid = Base64URL.encode(SHA256.hash(data: Ed25519JWK.thumbprintInput(publicKey: publicKey)))
        verifier = DocumentVerifier(trustedKeys: [try! TrustedKey(rawRepresentation: publicKey)])
    }

    /// Signs `payload` under `header` with the trusted key and remembers the pair as genuine.
    public func sign(header: [UInt8], payload: [UInt8]) -> [UInt8] {
        var document = SignedDocument(
            protected: Base64URL.encode(header), payload: Base64URL.encode(payload), signature: "")
        genuine.insert(document.signingInput)
        document.signature = Base64URL.encode(try! key.signature(for: document.signingInput))
        return document.serialized
    }

    /// A valid pin set for ``host``, valid at ``now``.
    public static func validSet(version: Int = 5, host: String = host) -> PinSet {
        PinSet(
            host: host, version: version, issuedAt: now.addingTimeInterval(-3600),
            expiresAt: now.addingTimeInterval(14 * 86_400), includeSubdomains: version % 2 == 0,
            pins: [
                Pin(sha256: Base64.encode([UInt8](repeating: 1, count: 32)), role: .current),
                Pin(sha256: Base64.encode([UInt8](repeating: 2, count: 32)), role: .backup),
            ], reportUri: "https://reports.example.com/pins")
    }

    /// Starting inputs for every target (each already prefixed with its target byte).
    public func seeds() -> [[UInt8]] {
        func tagged(_ target: Target, _ bytes: [UInt8]) -> [UInt8] { [target.rawValue] + bytes }
        let header = SignedDocument.protectedHeader(kid: kid)
        var seeds: [[UInt8]] = []
        for (version, host) in [(5, Self.host), (2, Self.host), (7, "other.example.com")] {
            let payload = Self.validSet(version: version, host: host).encodedJSON()
            seeds.append(tagged(.document, sign(header: header, payload: payload)))
            seeds.append(tagged(.signedParts, header + [0] + payload))
            seeds.append(tagged(.payload, payload))
        }
        let pin = Base64.encode([UInt8](repeating: 9, count: 32))
        let pem = Self.certificatePEM.replacingOccurrences(of: "\n", with: "\\n")
        seeds.append(
            tagged(
                .adminSet,
                Array(
                    #"{"pins":[{"sha256":"\#(pin)","role":"current"},{"certificate":"\#(pem)","role":"backup","expiresAt":"2027-01-01T00:00:00Z"}],"includeSubdomains":true,"enforce":false,"reportUri":"https://r.example.com/"}"#
                        .utf8)))
        seeds.append(
            tagged(.adminPins, Array(#"{"pins":[{"sha256":"\#(pin)","type":"certificate","comment":"next"}]}"#.utf8)))
        seeds.append(tagged(.certificate, Array(Self.certificatePEM.utf8)))
        seeds.append(
            tagged(
                .report,
                Array(
                    #"{"date-time":"2026-11-21T10:00:00Z","hostname":"fuzz.example.com","port":443,"noted-hostname":"example.com","include-subdomains":true,"enforce-pinning":true,"validated-certificate-chain":["MIIB"],"known-pins":["pin-sha256=\"\#(pin)\""],"validation-result":1}"#
                        .utf8)))
        seeds.append(tagged(.hostName, Array("WWW.Example.COM.".utf8)))
        seeds.append(tagged(.hostName, Array("xn--bcher-kva.example".utf8)))
        seeds.append(
            tagged(.base64url, Array(Base64URL.encode((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) }).utf8)))
        seeds.append(tagged(.base64url, Array("AQID-_8".utf8)))
        seeds.append(tagged(.trust, trustSeed()))
        seeds += logSeeds()
        return seeds
    }

    /// Runs one input. Returns normally when every property held.
    /// - Throws: ``FuzzFinding`` when an oracle fails (a crash, of course, stops the process instead).
    public func run(_ input: [UInt8]) throws(FuzzFinding) {
        lastOutcome = nil
        guard let first = input.first else { return }
        let target = Target.allCases[Int(first) % Target.allCases.count]
        let data = Array(input.dropFirst())
        switch target {
        case .document: try document(data)
        case .signedParts: try signedParts(data)
        case .payload: try payload(data)
        case .adminSet:
            if let request = try? SetRequest(json: data) { certificates(request.pins) }
        case .adminPins:
            if let request = try? PinsRequest(json: data) { certificates(request.pins) }
        case .certificate:
            if let parsed = try? CertificateParser.parse(data) {
                for certificate in parsed where certificate.spkiDER.isEmpty || certificate.der.isEmpty {
                    throw FuzzFinding(target, "a parsed certificate has empty DER or SPKI")
                }
            }
        case .report:
            _ = try? JSONDecoder().decode(PinFailureReport.self, from: Data(data))
        case .base64url:
            try base64url(data)
        case .trust:
            try trust(data)
        case .tlog:
            try tlog(data)
        case .hostName:
            let text = String(decoding: data, as: UTF8.self)
            if let once = try? HostName.normalize(text) {
                guard let twice = try? HostName.normalize(once), twice == once else {
                    throw FuzzFinding(target, "normalize is not idempotent for \(text.debugDescription)")
                }
            }
        }
    }

    private func document(_ data: [UInt8]) throws(FuzzFinding) {
        // The fast envelope scan must agree with the general decoder on every input.
        let reference = try? JSONDecoder().decode(SignedDocument.self, from: Data(data))
        let fast = try? SignedDocument.decode(json: data)
        guard fast == reference else {
            throw FuzzFinding(
                .document,
                "SignedDocument.decode(json:) gives \(String(describing: fast)), JSONDecoder \(String(describing: reference))"
            )
        }
        if let reference {
            for member in [reference.protected, reference.payload, reference.signature] {
                try base64url(Array(member.utf8))
            }
        }
        _ = verifier.verifyIgnoringTime(data, host: Self.host, lastAccepted: nil)
        let result = verifier.verify(data, host: Self.host, now: Self.now, lastAccepted: nil)
        count(result)
        guard case .success(let accepted) = result else { return }
        guard let envelope = try? JSONDecoder().decode(SignedDocument.self, from: Data(data)),
            genuine.contains(envelope.signingInput)
        else { throw FuzzFinding(.document, "accepted a document this harness never signed") }
        guard accepted.pinSet.host == Self.host else {
            throw FuzzFinding(.document, "accepted a document for \(accepted.pinSet.host)")
        }
    }

    private func signedParts(_ data: [UInt8]) throws(FuzzFinding) {
        let split = data.firstIndex(of: 0) ?? data.endIndex
        let header = Array(data[..<split])
        let payload = split < data.endIndex ? Array(data[(split + 1)...]) : []
        let document = sign(header: header, payload: payload)
        let result = verifier.verify(document, host: Self.host, now: Self.now, lastAccepted: Self.floor)
        count(result)
        guard case .success(let accepted) = result else { return }
        // Re-check PROTOCOL §5 independently of the verifier.
        let set = accepted.pinSet
        let decodedHeader = try? JSONDecoder().decode(JWSHeader.self, from: Data(header))
        var broken: [String] = []
        if decodedHeader?.alg != "EdDSA" { broken.append("alg") }
        if let typ = decodedHeader?.typ, typ != SignedDocument.type { broken.append("typ") }
        if decodedHeader?.kid != kid { broken.append("kid") }
        if set.host != Self.host { broken.append("host") }
        if !(set.issuedAt.addingTimeInterval(-verifier.skew) <= Self.now
            && Self.now < set.expiresAt.addingTimeInterval(verifier.skew))
        {
            broken.append("time")
        }
        if AcceptedVersion(version: set.version, issuedAt: set.issuedAt) < Self.floor { broken.append("rollback") }
        if set.pins.count > PinSet.maxPins { broken.append("pin count") }
        if !broken.isEmpty {
            throw FuzzFinding(.signedParts, "accepted a document that breaks: \(broken.joined(separator: ", "))")
        }
    }

    private func count(_ result: Result<VerifiedDocument, DocumentRejection>) {
        let outcome: String
        switch result {
        case .success: outcome = "accepted"
        case .failure(let rejection): outcome = rejection.code.rawValue
        }
        outcomes[outcome, default: 0] += 1
        lastOutcome = outcome
    }

    /// Base64URL's hand-written decoder against Foundation's (after mapping the alphabet and padding).
    private func base64url(_ data: [UInt8]) throws(FuzzFinding) {
        let fast = Base64URL.decode(utf8: data)
        var reference: [UInt8]? = nil
        if let text = String(bytes: data, encoding: .utf8), !text.contains("="), !text.contains("+"),
            !text.contains("/"), data.count % 4 != 1
        {
            var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
            reference = Data(base64Encoded: standard).map { [UInt8]($0) }
        }
        guard fast == reference else {
            throw FuzzFinding(
                .base64url,
                "Base64URL.decode gives \(fast.map { "\($0.count) bytes" } ?? "nil"), Foundation \(reference.map { "\($0.count) bytes" } ?? "nil") for \(String(decoding: data, as: UTF8.self).debugDescription)"
            )
        }
    }

    private func payload(_ data: [UInt8]) throws(FuzzFinding) {
        guard let set = try? PinSet.decode(json: data) else { return }
        let encoded = set.encodedJSON()
        guard let reference = try? Self.referenceEncoder.encode(set), [UInt8](reference) == encoded else {
            throw FuzzFinding(.payload, "JSONWriter's payload bytes differ from JSONEncoder's")
        }
        guard let again = try? PinSet.decode(json: encoded), again == set else {
            throw FuzzFinding(.payload, "decode(encode(set)) differs from the set")
        }
    }

    private func certificates(_ pins: [PinInput]) {
        for pin in pins {
            if let certificate = pin.certificate { _ = try? CertificateParser.parse(Array(certificate.utf8)) }
        }
    }
}

/// A property that failed for one input.
public struct FuzzFinding: Error, CustomStringConvertible {
    /// The target that failed.
    public let target: FuzzHarness.Target
    /// What went wrong.
    public let message: String

    init(_ target: FuzzHarness.Target, _ message: String) {
        self.target = target
        self.message = message
    }

    /// `"<target>: <message>"`.
    public var description: String { "\(target): \(message)" }
}
