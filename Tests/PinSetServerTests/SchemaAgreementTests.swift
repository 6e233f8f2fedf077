import Foundation
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// What openapi.yaml allows, the server accepts (issue 17 item 12): a pin in the `{sha256}` path parameter may
/// be the standard base64 that every answer carries, even with `/` in it, as well as base64url.
@Suite(.blocking) struct SchemaAgreementTests {
    /// Three pins whose standard base64 holds `+`, `/` and `=`.
    static let pins = [
        Base64.encode([UInt8](repeating: 0xFB, count: 32)), Base64.encode([UInt8](repeating: 0xFF, count: 32)),
        Base64.encode([UInt8](repeating: 0x01, count: 32)),
    ]

    @Test func aPinInStandardBase64IsRemovedThroughThePath() throws {
        let server = try TestServer()
        let body =
            #"{"pins":[{"sha256":"\#(Self.pins[0])"},{"sha256":"\#(Self.pins[1])"},{"sha256":"\#(Self.pins[2])","role":"backup"}]}"#
        #expect(try server.put("api.example.com", body).status == 201)
        #expect(Self.pins[1].contains("/") && Self.pins[0].contains("+"))

        // Percent-encoded, as a client builds the URL from an answer's value.
        let encoded = Self.pins[1].replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "=", with: "%3D")
        let removed = try server.client.request(
            "DELETE", "/admin/hosts/api.example.com/pins/\(encoded)", headers: server.auth)
        #expect(removed.status == 200, "\(removed.text)")
        // Base64url, as documented.
        let url = Base64URL.encode(Base64.decode(Self.pins[0])!)
        let second = try server.put("api.example.com", body)
        #expect(second.status == 200)
        let removedURL = try server.client.request(
            "DELETE", "/admin/hosts/api.example.com/pins/\(url)", headers: server.auth)
        #expect(removedURL.status == 200, "\(removedURL.text)")
        // Neither alphabet: still a clear 400.
        let bad = try server.client.request(
            "DELETE", "/admin/hosts/api.example.com/pins/not-a-pin", headers: server.auth)
        #expect(bad.status == 400)
    }

    @Test func anEmptyOrMalformedIfMatchIsABadRequest() throws {
        let server = try TestServer()
        #expect(try server.put("api.example.com", pinPair()).status == 201)
        // openapi.yaml requires `*` or a non-empty entity-tag list: anything else is a 400 (issue 26), never a
        // stale 412, and nothing is written.
        for value in ["", "  ", "abc", "\"a\" \"b\"", "\"a\",", "W/abc", "\"a\"b\""] {
            let put = try server.put("api.example.com", pinPair(3), headers: ["If-Match": value])
            #expect(put.status == 400, "If-Match [\(value)] answered \(put.status)")
            #expect(put.text.contains("If-Match must be"), "\(put.text)")
            let delete = try server.client.request(
                "DELETE", "/admin/hosts/api.example.com", headers: server.auth.merging(["If-Match": value]) { $1 })
            #expect(delete.status == 400, "DELETE with If-Match [\(value)] answered \(delete.status)")
        }
        // Well-formed but stale is still 412; `*`, a list and a weak tag are well-formed.
        #expect(
            try server.put("api.example.com", pinPair(3), headers: ["If-Match": "\"stale\", W/\"x\""]).status == 412)
        // openapi.yaml's pattern allows any character but `"` inside the quotes, a comma included.
        #expect(
            try server.put("api.example.com", pinPair(3), headers: ["If-Match": "\"a,b\"\t,\tW/\"c d\""]).status == 412)
        #expect(try server.put("api.example.com", pinPair(3), headers: ["If-Match": " * "]).status == 200)
    }
}
