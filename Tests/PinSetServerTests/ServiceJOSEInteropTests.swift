import Foundation
import OpenSSLCrypto
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Checks served documents with an independent JOSE implementation (Python joserfc), when it is installed
/// (`make test-deps` installs it). The JWKS the service lists is what the verifier is given.
@Suite(.blocking) struct ServiceJOSEInteropTests {
    static let joserfcAvailable: Bool = (try? sh("python3 -c 'import joserfc'", in: URL(fileURLWithPath: "/"))) != nil

    @Test(.enabled(if: joserfcAvailable, "python3 joserfc is not installed"))
    func joserfcVerifiesDocumentsWithTheListedKey() throws {
        let f = try ServiceFixture()
        let outcome = try f.service.replace(
            host: "jose.example", request: ServiceFixture.validSet(reportUri: "https://r.example/p"), ifMatch: nil,
            tokenName: "t")
        try Data(outcome.document.body).write(to: f.directory.appendingPathComponent("doc.json"))
        try JSONEncoder().encode(f.service.keySet()).write(to: f.directory.appendingPathComponent("jwks.json"))
        let script = """
            import json, warnings
            warnings.simplefilter("ignore")
            from joserfc import jws
            from joserfc.jwk import OKPKey
            jwk = json.load(open("jwks.json"))["keys"][0]
            key = OKPKey.import_key({"kty": jwk["kty"], "crv": jwk["crv"], "x": jwk["x"]})
            assert key.thumbprint() == jwk["kid"], "kid is not the RFC 7638 thumbprint"
            obj = jws.deserialize_json(json.load(open("doc.json")), key, algorithms=["EdDSA"])
            assert obj.headers()["kid"] == jwk["kid"]
            print(json.loads(obj.payload)["host"], json.loads(obj.payload)["version"])
            """
        try Data(script.utf8).write(to: f.directory.appendingPathComponent("verify.py"))
        let output = String(decoding: try sh("python3 verify.py", in: f.directory), as: UTF8.self)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "jose.example 1")
    }
}
