import Foundation
import TestSupport
import Testing

/// RFC 9110 details (issue 17 item 10): `GET /keys` has an `ETag` and answers `If-None-Match`; a `304` has no
/// body. (Its `Content-Length` is libmicrohttpd 0.9.75's `0`: see ``CachedResource/notModifiedResponse``.)
@Suite(.blocking) struct ConditionalResponseTests {
    @Test func a304HasNoBody() throws {
        let server = try TestServer()
        _ = try server.put("api.example.com", pinPair())
        let get = try server.client.request("GET", "/pins/api.example.com")
        let etag = try #require(get.header("ETag"))
        let cached = try server.client.request("GET", "/pins/api.example.com", headers: ["If-None-Match": etag])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(cached.header("ETag") == etag)
    }

    @Test func keysHaveAnETagAndAnswer304() throws {
        let server = try TestServer()
        let keys = try server.client.request("GET", "/keys")
        #expect(keys.status == 200)
        let etag = try #require(keys.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let cached = try server.client.request("GET", "/keys", headers: ["If-None-Match": etag])
        #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == etag)
        let stale = try server.client.request("GET", "/keys", headers: ["If-None-Match": "\"other\""])
        #expect(stale.status == 200 && stale.body == keys.body)
    }
}
