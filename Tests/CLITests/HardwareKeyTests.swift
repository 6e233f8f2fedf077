import Foundation
import PinSetClient
import TestSupport
import Testing

/// Keys in hardware (issue 25): the signing key and the root keys on SoftHSM tokens, through `pinset` itself.
@Suite(.serialized, .blocking) struct HardwareKeyTests {
    static let key = "pkcs11:token=pinset;object=signing-2026"

    /// A token "pinset" with PIN 1234 and an Ed25519 key made by `pinset keygen --pkcs11`.
    private static func tokenWithKey(_ hsm: SoftHSM) throws -> (pinFile: String, kid: String) {
        let pinFile = try hsm.initToken("pinset", pin: "1234")
        let made = try CLIRunner.pinset(
            ["keygen", "--pkcs11", "\(key)?pin-source=file:\(pinFile)"], environment: hsm.environment)
        #expect(made.status == 0, "\(made.stderr)")
        let kid = made.stdout.split(separator: "\n").first { $0.hasPrefix("kid: ") }.map { String($0.dropFirst(5)) }
        #expect(made.stdout.contains("-----BEGIN PUBLIC KEY-----"))
        return (pinFile, kid ?? "")
    }

    private static func randomPin() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    @Test func serverSigningOnTheTokenServesDocumentsThatVerify() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        let (_, kid) = try Self.tokenWithKey(hsm)
        let data = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try RunningServer(
            directory: data, key: Self.key, environment: hsm.environment.merging(["PINSET_PKCS11_PIN": "1234"]) { $1 })
        defer { server.stop() }
        let set = try CLIRunner.pinset(
            ["set", "api.example", "--pin", Self.randomPin(), "--backup", Self.randomPin()],
            environment: server.environment)
        #expect(set.status == 0, "\(set.stderr)")
        let body = try CLIRunner.run("/usr/bin/curl", ["-sS", server.url + "/pins/api.example"]).stdout

        // The public key read off the token by pkcs11-tool verifies the document, with openssl...
        let pem = try hsm.publicKeyPEM(token: "pinset", label: "signing-2026")
        let jws = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String] ?? [:]
        let work = hsm.directory
        try pem.write(to: work.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        try Data("\(jws["protected"] ?? "").\(jws["payload"] ?? "")".utf8).write(to: work.appendingPathComponent("in"))
        try Self.base64URL(jws["signature"] ?? "").write(to: work.appendingPathComponent("sig"))
        try CLIRunner.shell("openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in in -sigfile sig", in: work)
        // ...and the Swift client accepts it, signed by the kid keygen printed.
        let verifier = DocumentVerifier(trustedKeys: [try TrustedKey(spkiPEM: pem)])
        let verified = try verifier.verify(Array(body.utf8), host: "api.example", now: Date(), lastAccepted: nil).get()
        #expect(verified.kid == kid)

        // Four threads sign at once, each on a session of the pool, none failing.
        let concurrent = try CLIRunner.pinset(
            ["sign-bench", "--key", Self.key, "--count", "400", "--threads", "4"],
            environment: hsm.environment.merging(["PINSET_PKCS11_PIN": "1234"]) { $1 })
        #expect(concurrent.status == 0 && concurrent.stdout.hasPrefix("signed 400"), "\(concurrent.stderr)")

        // The private key cannot be read off the token: sensitive, never extractable.
        let objects = try hsm.pkcs11Tool(["--token-label", "pinset", "--login", "--pin", "1234", "--list-objects"])
        let privateKey = objects.components(separatedBy: "Private Key Object").dropFirst().first ?? ""
        #expect(privateKey.contains("never extractable") && privateKey.contains("sensitive"), "\(objects)")
        // No file under the data directory holds key material: the database and its journal, nothing else.
        let files = try FileManager.default.contentsOfDirectory(atPath: data.path)
        #expect(files.allSatisfy { $0.hasPrefix("db.sqlite") }, "\(files)")
        for file in files {
            let bytes = try Data(contentsOf: data.appendingPathComponent(file))
            #expect(bytes.range(of: Data("PRIVATE KEY".utf8)) == nil)
        }
    }

    @Test func startupRefusesWithOneLineThatSaysWhatToFix() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        let (pinFile, _) = try Self.tokenWithKey(hsm)
        try hsm.pkcs11Tool([
            "--token-label", "pinset", "--login", "--pin", "1234", "--keypairgen", "--key-type", "EC:prime256v1",
            "--label", "p256", "--id", "51",
        ])
        try hsm.pkcs11Tool([
            "--token-label", "pinset", "--login", "--pin", "1234", "--keypairgen", "--key-type", "EC:edwards25519",
            "--label", "loose", "--id", "52", "--extractable",
        ])
        let data = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        func start(_ key: String, _ environment: [String: String], _ extra: [String] = []) throws -> CLIRunner.Output {
            try CLIRunner.pinset(
                ["serve", "--db", data.appendingPathComponent("db.sqlite").path, "--key", key, "--port", "0"] + extra,
                environment: hsm.environment.merging(environment) { $1 })
        }
        let cases: [(String, [String: String], String)] = [
            (Self.key, ["PINSET_PKCS11_PIN": "9999"], "refused the PIN (CKR_PIN_INCORRECT"),
            ("pkcs11:token=pinset;object=missing", ["PINSET_PKCS11_PIN": "1234"], "has no private key object=missing"),
            ("pkcs11:token=pinset;object=p256", ["PINSET_PKCS11_PIN": "1234"], "is not an Ed25519 key"),
            (
                Self.key, ["PINSET_PKCS11_PIN": "1234", "PINSET_PKCS11_MODULE": "/nonexistent/libpkcs11.so"],
                "cannot load the PKCS#11 module /nonexistent/libpkcs11.so"
            ),
            ("pkcs11:token=other;object=signing-2026", ["PINSET_PKCS11_PIN": "1234"], "no token labelled \"other\""),
            ("\(Self.key)?pin-value=1234", [:], "pin-value is refused"),
            ("pkcs11:token=pinset;object=loose", ["PINSET_PKCS11_PIN": "1234"], "--allow-extractable-key"),
        ]
        for (key, environment, expected) in cases {
            let refused = try start(key, environment)
            #expect(refused.status != 0)
            let lines = refused.stderr.split(whereSeparator: \.isNewline)
            #expect(lines.count == 1 && refused.lastErrorLine.contains(expected), "\(key): \(refused.stderr)")
            #expect(!refused.stderr.contains("1234") || key.contains("pin-value"), "the PIN leaked: \(refused.stderr)")
        }
        // The PIN file works in place of the variable; an extractable key starts with a warning when allowed.
        let loose = try RunningServer(
            directory: data, extraArguments: ["--allow-extractable-key"],
            key: "pkcs11:token=pinset;object=loose?pin-source=file:\(pinFile)", environment: hsm.environment)
        loose.stop()
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("key.pem").path))
    }

    @Test func trustSignWithRootKeysOnTwoTokensMakesADocumentTheClientAccepts() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        var uris: [String] = []
        var roots: [TrustedKey] = []
        for (label, pin) in [("root-alice", "1111"), ("root-bob", "2222")] {
            let pinFile = try hsm.initToken(label, pin: pin)
            let uri = "pkcs11:token=\(label);object=root?pin-source=file:\(pinFile)"
            let made = try CLIRunner.pinset(["keygen", "--pkcs11", uri], environment: hsm.environment)
            #expect(made.status == 0, "\(made.stderr)")
            uris.append(uri)
            roots.append(try TrustedKey(spkiPEM: hsm.publicKeyPEM(token: label, label: "root")))
        }
        let work = hsm.directory
        try CLIRunner.shell("openssl genpkey -algorithm ed25519 | openssl pkey -pubout -out signing.pub", in: work)
        let trust = work.appendingPathComponent("trust-1.json").path
        // Alice signs, naming both roots with threshold 2; Bob co-signs from his own token.
        let signed = try CLIRunner.pinset(
            [
                "trust", "sign", "--root-key", uris[0], "--next-root-pub", uris[0], "--next-root-pub", uris[1],
                "--threshold", "2", "--signing-key-pub", work.appendingPathComponent("signing.pub").path,
                "--version", "1", "--out", trust,
            ], environment: hsm.environment)
        #expect(signed.status == 0, "\(signed.stderr)")
        let cosigned = try CLIRunner.pinset(
            ["trust", "cosign", trust, "--root-key", uris[1]], environment: hsm.environment)
        #expect(cosigned.status == 0, "\(cosigned.stderr)")

        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: trust)))
        let shipped = try TrustState(rootKeys: roots, threshold: 2)
        let accepted = try TrustDocumentVerifier().verifyNext(bytes, after: shipped).get()
        #expect(accepted.version == 1)
        #expect(TrustDocumentVerifier().checkTime(accepted, now: Date()) == nil)
        // One token alone is not enough for a threshold of 2.
        let alone = work.appendingPathComponent("trust-alone.json").path
        #expect(
            try CLIRunner.pinset(
                [
                    "trust", "sign", "--root-key", uris[0], "--signing-key-pub",
                    work.appendingPathComponent("signing.pub").path, "--version", "1", "--out", alone,
                ], environment: hsm.environment
            ).status == 0)
        let refused = TrustDocumentVerifier().verifyNext(
            Array(try Data(contentsOf: URL(fileURLWithPath: alone))), after: shipped)
        guard case .failure = refused else {
            Issue.record("a trust document signed by one of two required roots was accepted")
            return
        }
    }

    @Test func tokenGoneOrReplacedWhileRunningAnswers503OnWritesAndRecoversWithoutRestart() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        _ = try Self.tokenWithKey(hsm)
        let data = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try RunningServer(
            directory: data, key: Self.key, environment: hsm.environment.merging(["PINSET_PKCS11_PIN": "1234"]) { $1 })
        defer { server.stop() }
        let http = LoopbackHTTP(url: server.url)
        func put(_ host: String) throws -> LoopbackHTTP.Response {
            let body =
                #"{"pins":[{"sha256":"\#(Self.randomPin())"},{"sha256":"\#(Self.randomPin())","role":"backup"}]}"#
            return try http.request("PUT", "/admin/hosts/\(host)", token: server.token, body: body)
        }
        #expect(try put("one.example").status == 201)
        let away = hsm.directory.appendingPathComponent("tokens.away")
        try FileManager.default.moveItem(at: hsm.tokenDirectory, to: away)
        let refused = try put("two.example")
        #expect(refused.status == 503, "\(refused.body)")
        #expect(refused.body.contains("\"status\":503") && refused.body.contains("cannot sign now"), "\(refused.body)")
        #expect(try http.request("GET", "/pins/one.example").status == 200)
        #expect(try http.request("GET", "/pins/two.example").status == 404)
        // Another token under the same label, with another key under the same name: never used to sign.
        try FileManager.default.createDirectory(at: hsm.tokenDirectory, withIntermediateDirectories: true)
        _ = try Self.tokenWithKey(hsm)
        let impostor = try put("two.example")
        #expect(impostor.status == 503 && impostor.body.contains("no longer the key"), "\(impostor.body)")
        try FileManager.default.removeItem(at: hsm.tokenDirectory)
        try FileManager.default.moveItem(at: away, to: hsm.tokenDirectory)
        #expect(try put("two.example").status == 201)
        #expect(try http.request("GET", "/pins/two.example").status == 200)
    }

    /// Unpadded base64url to bytes.
    private static func base64URL(_ text: String) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64) ?? Data()
    }
}
