import Foundation
import PinSetCore
import TestSupport
import Testing

/// Issue 40, item 7: size limits count bytes, and no document over 65,535 bytes is ever signed.
@Suite(.blocking) struct ByteLimitTests {
    /// A set of `count` pins (the last a backup), each with `comment` written as JSON string contents.
    private func set(_ count: Int, comment: String) -> String {
        let pins = (0..<count).map { index in
            let hash = Base64.encode([UInt8](repeating: UInt8(index), count: 31) + [UInt8(index)])
            return
                #"{"sha256":"\#(hash)","role":"\#(index == count - 1 ? "backup" : "current")","comment":"\#(comment)"}"#
        }
        return #"{"pins":[\#(pins.joined(separator: ","))]}"#
    }

    /// Finding 7: 200 × (`a` + combining marks) passed the 200-"character" limit and made an 80,969-byte
    /// document that every client refuses.
    @Test func theCommentLimitCountsBytes() throws {
        let server = try TestServer()
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 10), count: 200)
        let answer = try server.put("heavy.example.com", set(2, comment: heavy))
        #expect(answer.status == 422, "\(answer.status)")
        #expect(try answer.json()["rule"] as? String == "invalidPin")
        #expect(try server.client.request("GET", "/pins/heavy.example.com").status == 404)
        // 200 bytes of UTF-8 are still fine; 201 are not.
        #expect(try server.put("ok.example.com", set(2, comment: String(repeating: "é", count: 100))).status == 201)
        #expect(try server.put("ok.example.com", set(2, comment: String(repeating: "x", count: 201))).status == 422)
    }

    /// A set within every per-field limit whose signed document would still exceed 65,535 bytes (200 control
    /// characters per comment are 1,200 bytes once JSON-escaped) is refused with 422 before it is signed.
    @Test func noDocumentOver65535BytesIsSigned() throws {
        let server = try TestServer()
        let escaped = String(repeating: #"\u0001"#, count: 200)
        let body = set(40, comment: escaped)
        #expect(body.utf8.count < 64 * 1024)
        let answer = try server.put("big.example.com", body)
        #expect(answer.status == 422, "\(answer.status) \(answer.text.prefix(300))")
        #expect(try answer.json()["rule"] as? String == "document-too-large")
        #expect(try server.client.request("GET", "/pins/big.example.com").status == 404)
        #expect(try server.client.request("GET", "/admin/hosts/big.example.com", headers: server.auth).status == 404)
        // Ten such pins fit.
        let fits = try server.put("big.example.com", set(10, comment: escaped))
        #expect(fits.status == 201)
        #expect(try server.client.request("GET", "/pins/big.example.com").body.count <= 65_535)
    }
}
