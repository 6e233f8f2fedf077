import Foundation
import Testing

/// RFC 9110 details (issue 17 item 10): a `304` carries the `200`'s `Content-Length` or none (§8.6), never 0,
/// and `GET /keys` has an `ETag` and answers `If-None-Match`.
@Suite struct ConditionalResponseTests {
    @Test func a304CarriesThe200sContentLengthAndNoBody() throws {
        let server = try TestServer()
        _ = try server.put("api.example.com", pinPair())
        let get = try server.client.request("GET", "/pins/api.example.com")
        let etag = try #require(get.header("ETag"))
        let cached = try server.client.request("GET", "/pins/api.example.com", headers: ["If-None-Match": etag])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(cached.header("Content-Length") == String(get.body.count))
    }

    @Test func keysHaveAnETagAndAnswer304() throws {
        let server = try TestServer()
        let keys = try server.client.request("GET", "/keys")
        #expect(keys.status == 200)
        let etag = try #require(keys.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let cached = try server.client.request("GET", "/keys", headers: ["If-None-Match": etag])
        #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == etag)
        #expect(cached.header("Content-Length") == String(keys.body.count))
        let stale = try server.client.request("GET", "/keys", headers: ["If-None-Match": "\"other\""])
        #expect(stale.status == 200 && stale.body == keys.body)
    }
}
