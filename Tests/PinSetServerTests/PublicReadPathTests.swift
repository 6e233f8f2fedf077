import Foundation
import PinSetCore
import TestSupport
import Testing

@Suite(.blocking) struct PublicReadPathTests {
    @Test func documentVerifiesWithOpenSSLAndPython() throws {
        let server = try TestServer()
        let put = try server.put("api.example.com", pinPair())
        #expect(put.status == 201, "\(put.text)")
        let get = try server.client.request("GET", "/pins/api.example.com")
        #expect(get.status == 200)
        #expect(get.header("Content-Type") == "application/json")
        #expect(get.header("Cache-Control") == "public, max-age=3600")
        #expect(get.header("ETag") == put.header("ETag"))

        let document = try JSONDecoder().decode(SignedDocument.self, from: Data(get.body))
        let header = String(decoding: Base64URL.decode(document.protected)!, as: UTF8.self)
        #expect(header.hasPrefix(#"{"alg":"EdDSA","kid":""#) && header.hasSuffix(#"","typ":"pinset+jws"}"#))
        let payload = try PinSet.decode(json: Base64URL.decode(document.payload)!)
        #expect(payload.host == "api.example.com" && payload.version == 1 && payload.pins.count == 2)
        #expect(payload.expiresAt.timeIntervalSince(payload.issuedAt) == 14 * 86_400)

        // Independent verifier 1: the openssl CLI over the exact signing input.
        let dir = server.directory
        let input = dir.appendingPathComponent("input").path
        let signature = dir.appendingPathComponent("sig").path
        try Data(document.signingInput).write(to: URL(fileURLWithPath: input))
        try Data(Base64URL.decode(document.signature)!).write(to: URL(fileURLWithPath: signature))
        let verified = try run(
            "openssl", "pkeyutl", "-verify", "-pubin", "-inkey", try server.publicKeyPath(), "-rawin", "-in", input,
            "-sigfile", signature)
        #expect(verified.contains("Signature Verified Successfully"))

        // Independent verifier 2: Python joserfc + cryptography (scripts/verify_document.py).
        let docPath = dir.appendingPathComponent("doc.json").path
        try Data(get.body).write(to: URL(fileURLWithPath: docPath))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../scripts/verify_document.py"
        ).standardized.path
        try run(
            "python3", script, "--doc", docPath, "--pubkey", try server.publicKeyPath(), "--host", "api.example.com")
    }

    @Test func etagAnswers304AndHeadHasNoBody() throws {
        let server = try TestServer()
        _ = try server.put("api.example.com", pinPair())
        let get = try server.client.request("GET", "/pins/api.example.com")
        let etag = try #require(get.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        let cached = try server.client.request("GET", "/pins/api.example.com", headers: ["If-None-Match": etag])
        #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == etag)
        let listed = try server.client.request(
            "GET", "/pins/api.example.com", headers: ["If-None-Match": "\"x\", W/\(etag)"])
        #expect(listed.status == 304)
        let stale = try server.client.request("GET", "/pins/api.example.com", headers: ["If-None-Match": "\"other\""])
        #expect(stale.status == 200)
        let head = try server.client.request("HEAD", "/pins/api.example.com")
        #expect(
            head.status == 200 && head.header("ETag") == etag && head.header("Content-Length") == String(get.body.count)
        )

        // A write changes the ETag, and the next GET serves the new document.
        let next = try server.put("api.example.com", pinPair(7))
        #expect(next.status == 200)
        let after = try server.client.request("GET", "/pins/api.example.com", headers: ["If-None-Match": etag])
        #expect(after.status == 200 && after.header("ETag") == next.header("ETag") && after.header("ETag") != etag)
    }

    @Test func hostsAreNormalisedOrRefused() throws {
        let server = try TestServer()
        _ = try server.put("API.Example.com", pinPair())
        #expect(try server.client.request("GET", "/pins/api.example.com").status == 200)
        #expect(try server.client.request("GET", "/pins/API.EXAMPLE.COM").status == 200)
        #expect(try server.client.request("GET", "/pins/api.example.com.").status == 200)
        let unknown = try server.client.request("GET", "/pins/other.example.com")
        #expect(unknown.status == 404 && unknown.header("Content-Type") == "application/problem+json")
        for bad in ["bad_host", "a..b", "api.example.com:443", "-x.com", "%00x.com", "1.2.3.4"] {
            let response = try server.client.request("GET", "/pins/\(bad)")
            #expect(response.status == 400, "\(bad)")
            let problem = try response.json()
            // A control character in the path is refused before routing (issue 40): bad-request, not invalid-host.
            let type = bad.hasPrefix("%00") ? "bad-request" : "invalid-host"
            #expect(problem["type"] as? String == "urn:pinset:problem:\(type)")
            #expect((problem["detail"] as? String)?.isEmpty == false)
        }
        #expect(try server.client.request("POST", "/pins/api.example.com").status == 405)
    }

    @Test func keysHealthAndMetrics() throws {
        let server = try TestServer()
        let keys = try server.client.request("GET", "/keys").json()
        let list = try #require(keys["keys"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list[0]["kty"] as? String == "OKP" && list[0]["crv"] as? String == "Ed25519")
        #expect(list[0]["alg"] as? String == "EdDSA" && list[0]["use"] as? String == "sig")
        let health = try server.client.request("GET", "/healthz")
        #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
        _ = try server.put("api.example.com", pinPair())
        _ = try server.client.request("GET", "/pins/api.example.com")
        let metrics = try server.client.request("GET", "/metrics")
        #expect(metrics.text.contains(#"pinset_http_requests_total{route="/pins/{host}",status="200"} 1"#))
        #expect(metrics.text.contains("pinset_admin_writes_total 1"))
        #expect(try server.client.request("GET", "/nowhere").status == 404)
    }
}
