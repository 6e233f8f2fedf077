import ReadCache
import Testing

@testable import PinSetLogServer
@testable import PinSetServer

/// The full tiles and bundles made on demand stay within their byte budget, least recently used out first.
@Suite struct LogTileCacheTests {
    static func resource(_ path: String, bytes: Int) -> CachedResource {
        CachedResource(
            key: Array(path.utf8), etag: "\"\(path)\"", body: [UInt8](repeating: 1, count: bytes), version: 0,
            contentType: "application/octet-stream", cacheControl: "public")
    }

    @Test func theLeastRecentlyUsedGoFirst() {
        var cache = LogTileCache(budget: 300)
        #expect(cache.put("a", Self.resource("a", bytes: 100), bytes: 100).isEmpty)
        #expect(cache.put("b", Self.resource("b", bytes: 100), bytes: 100).isEmpty)
        #expect(cache.put("c", Self.resource("c", bytes: 100), bytes: 100).isEmpty)
        #expect(cache.get("a")?.key == "a")
        let dropped = cache.put("d", Self.resource("d", bytes: 150), bytes: 150)
        #expect(dropped.map(\.key) == ["b", "c"])
        #expect(cache.get("b") == nil && cache.get("a") != nil && cache.get("d") != nil)
        #expect(cache.count == 2)
        #expect(cache.put("e", Self.resource("e", bytes: 301), bytes: 301).isEmpty, "larger than the budget")
        #expect(cache.get("e") == nil)
        #expect(cache.put("a", Self.resource("a", bytes: 100), bytes: 100).isEmpty, "kept already")
    }
}
