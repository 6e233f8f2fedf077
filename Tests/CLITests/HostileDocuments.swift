import Foundation
import PinSetCore

/// Builds signed (and broken) documents with the openssl CLI, independently of the server.
struct HostileDocuments {
    let dir: URL
    let key: String
    let kid: String

    /// Makes a fresh Ed25519 key with `pinset keygen` and remembers its kid.
    init(dir: URL, name: String) throws {
        self.dir = dir
        key = dir.appendingPathComponent("\(name).pem").path
        let output = try CLIRunner.pinset(["keygen", "--out", key]).stdout
        kid = output.split(separator: "\n").first.map { String($0.dropFirst("kid: ".count)) } ?? ""
    }

    static func pin() -> String { Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }

    /// A pin set payload.
    static func payload(host: String, version: Int, issuedAt: Date = Date(), expiresAt: Date = Date() + 86_400)
        -> String
    {
        """
        {"enforce":true,"expiresAt":"\(RFC3339.format(expiresAt))","host":"\(host)","includeSubdomains":false,\
        "issuedAt":"\(RFC3339.format(issuedAt))","pins":[{"role":"current","sha256":"\(pin())","type":"spki"},\
        {"role":"backup","sha256":"\(pin())","type":"spki"}],"version":\(version)}
        """
    }

    /// A document signed with this key (or with `alg` in the header and no real signature for alg ≠ EdDSA).
    func document(payload: String, alg: String = "EdDSA") throws -> Data {
        let header = Base64URL.encode(Array("{\"alg\":\"\(alg)\",\"kid\":\"\(kid)\",\"typ\":\"pinset+jws\"}".utf8))
        let body = Base64URL.encode(Array(payload.utf8))
        var signature = ""
        if alg == "EdDSA" {
            let input = dir.appendingPathComponent("input-\(UUID().uuidString)")
            try Data("\(header).\(body)".utf8).write(to: input)
            try CLIRunner.shell(
                "openssl pkeyutl -sign -inkey '\(key)' -rawin -in '\(input.path)' -out '\(input.path).sig'", in: dir)
            signature = Base64URL.encode(Array(try Data(contentsOf: URL(fileURLWithPath: input.path + ".sig"))))
        } else if alg == "HS256" {
            signature = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        }
        return Data("{\"payload\":\"\(body)\",\"protected\":\"\(header)\",\"signature\":\"\(signature)\"}".utf8)
    }

    /// Every hostile class of PROTOCOL §5, named, with the host it is served as and the refusal code expected.
    func hostileCases(host: (String) -> String, other: HostileDocuments) throws -> [(
        name: String, host: String, body: Data, code: String, extra: [String]
    )] {
        let good = try document(payload: Self.payload(host: host("tampered"), version: 3))
        var tampered = try JSONSerialization.jsonObject(with: good) as! [String: String]
        tampered["payload"] = Base64URL.encode(Array(Self.payload(host: host("tampered"), version: 99).utf8))
        let full = try document(payload: Self.payload(host: host("truncated"), version: 3))
        return [
            (
                "untrusted", host("untrusted"),
                try other.document(payload: Self.payload(host: host("untrusted"), version: 3)), "unknownKey", []
            ),
            (
                "none", host("none"), try document(payload: Self.payload(host: host("none"), version: 3), alg: "none"),
                "unsupportedAlgorithm", []
            ),
            (
                "hs256", host("hs256"),
                try document(payload: Self.payload(host: host("hs256"), version: 3), alg: "HS256"),
                "unsupportedAlgorithm", []
            ),
            (
                "otherhost", host("otherhost"), try document(payload: Self.payload(host: "evil.example", version: 3)),
                "hostMismatch", []
            ),
            (
                "older", host("older"), try document(payload: Self.payload(host: host("older"), version: 3)),
                "rollback", ["--min-version", "4"]
            ),
            (
                "expired", host("expired"),
                try document(
                    payload: Self.payload(
                        host: host("expired"), version: 3,
                        issuedAt: Date(timeIntervalSince1970: 1_600_000_000),
                        expiresAt: Date(timeIntervalSince1970: 1_601_000_000))), "expired", []
            ),
            ("tampered", host("tampered"), try JSONSerialization.data(withJSONObject: tampered), "badSignature", []),
            ("truncated", host("truncated"), full.prefix(full.count / 2), "malformedJSON", []),
            ("huge", host("huge"), Data(repeating: 0x20, count: 10 * 1024 * 1024), "tooLarge", []),
        ]
    }
}
