import Foundation
import PinSetCore
import TestSupport
import Testing

/// A planned rotation (PROTOCOL §6.3) whose next key is on a PKCS#11 token (SoftHSM), through `pinset` itself.
/// When the next key cannot sign at the moment of the switch, nothing changes: the push is answered 503, the
/// trust document is not stored, and the server keeps signing with the current key; once the token is back the
/// same push switches.
@Suite(.blocking) struct NextKeyOnTokenTests {
    static let nextKey = "pkcs11:token=pinset;object=next-2026"

    /// The `kid` in a served document's protected header.
    static func kid(_ document: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any],
            let protected = (object["protected"] as? String).flatMap({ Base64URL.decode($0) }),
            let header = try? JSONSerialization.jsonObject(with: Data(protected)) as? [String: Any]
        else { return nil }
        return header["kid"] as? String
    }

    @Test func aNextKeyThatCannotSignLeavesEverythingAsItWasUntilItCan() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        let pinFile = try hsm.initToken("pinset", pin: "1234")
        let made = try CLIRunner.pinset(
            ["keygen", "--pkcs11", "\(Self.nextKey)?pin-source=file:\(pinFile)"], environment: hsm.environment)
        #expect(made.status == 0, "\(made.stderr)")
        let nextKid = made.stdout.split(separator: "\n").first { $0.hasPrefix("kid: ") }.map { String($0.dropFirst(5)) }

        let data = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        for name in ["root.pem", "key.pem"] {
            try CLIRunner.shell("openssl genpkey -algorithm ed25519 -out \(name) && chmod 600 \(name)", in: data)
        }
        try CLIRunner.shell("openssl pkey -in root.pem -pubout -out root.pub", in: data)
        func trustSign(_ version: Int, delegating key: String) throws -> String {
            let out = data.appendingPathComponent("trust-\(version).json").path
            let signed = try CLIRunner.pinset(
                [
                    "trust", "sign", "--root-key", data.appendingPathComponent("root.pem").path, "--signing-key-pub",
                    key, "--version", "\(version)", "--out", out,
                ], environment: hsm.environment.merging(["PINSET_PKCS11_PIN": "1234"]) { $1 })
            #expect(signed.status == 0, "\(signed.stderr)")
            return try String(contentsOfFile: out, encoding: .utf8)
        }
        let v1 = try trustSign(1, delegating: data.appendingPathComponent("key.pem").path)
        let v2 = try trustSign(2, delegating: Self.nextKey)

        let server = try RunningServer(
            directory: data,
            extraArguments: [
                "--root-pub", data.appendingPathComponent("root.pub").path, "--next-key", Self.nextKey,
            ], environment: hsm.environment.merging(["PINSET_PKCS11_PIN": "1234"]) { $1 })
        defer { server.stop() }
        let http = LoopbackHTTP(url: server.url)
        let pins =
            #"{"pins":[{"sha256":"\#(String(repeating: "A", count: 43))="},"#
            + #"{"sha256":"\#(String(repeating: "E", count: 43))=","role":"backup"}]}"#
        #expect(try http.request("PUT", "/admin/trust", token: server.token, body: v1).status == 201)
        #expect(try http.request("PUT", "/admin/hosts/one.example", token: server.token, body: pins).status == 201)
        let currentKid = Self.kid(try http.request("GET", "/pins/one.example").body)
        #expect(currentKid != nil && currentKid != nextKid)

        // The token is gone when v2 (naming only the next key) is pushed: 503, nothing stored, nothing switched.
        let away = hsm.directory.appendingPathComponent("tokens.away")
        try FileManager.default.moveItem(at: hsm.tokenDirectory, to: away)
        let refused = try http.request("PUT", "/admin/trust", token: server.token, body: v2)
        #expect(refused.status == 503 && refused.body.contains("cannot sign now"), "\(refused.body)")
        #expect(try http.request("GET", "/trust").body == v1)
        #expect(try http.request("GET", "/trust/2").status == 404)
        #expect(Self.kid(try http.request("GET", "/pins/one.example").body) == currentKid)
        #expect(try http.request("PUT", "/admin/hosts/two.example", token: server.token, body: pins).status == 201)
        #expect(Self.kid(try http.request("GET", "/pins/two.example").body) == currentKid)

        // The token is back: the same push switches and re-signs both documents before the answer.
        try FileManager.default.moveItem(at: away, to: hsm.tokenDirectory)
        let accepted = try http.request("PUT", "/admin/trust", token: server.token, body: v2)
        #expect(accepted.status == 201, "\(accepted.body)")
        #expect(
            accepted.body.contains(#""rotatedTo":"\#(nextKid ?? "?")""#) && accepted.body.contains(#""resigned":2"#))
        #expect(try http.request("GET", "/trust").body == v2)
        for host in ["one.example", "two.example"] {
            #expect(Self.kid(try http.request("GET", "/pins/\(host)").body) == nextKid)
        }
    }
}
