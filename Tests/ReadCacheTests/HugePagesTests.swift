import TestSupport
import Testing

@testable import ReadCache

/// Moving a loaded index onto 2 MiB pages (``ResourceIndex/adviseHugePages()``) changes where the kernel keeps
/// the memory, never what it holds: every resource reads back byte for byte, and the index keeps working.
@Suite(.blocking) struct HugePagesTests {
    /// 6,000 resources of ~700 bytes: about 4.5 MB, a few 2 MiB regions (cheap to build in a debug build).
    private func loadedIndex() -> (ResourceIndex, [String: [UInt8]]) {
        let index = ResourceIndex(contentType: "application/json", cacheControl: "max-age=60", responseCapacity: 64)
        var bodies: [String: [UInt8]] = [:]
        let filler = [UInt8](repeating: 0x61, count: 690)
        index.reserveCapacity(6_000)
        for number in 0..<6_000 {
            let key = "h\(number).huge.example"
            let body = Array(key.utf8) + filler
            bodies[key] = body
            index.insert(key: key.utf8, etag: "\"e\(number)\"".utf8, body: body, version: 1)
        }
        return (index, bodies)
    }

    @Test func everyResourceReadsBackUnchangedAfterTheMove() {
        let (index, bodies) = loadedIndex()
        let (regions, collapsed) = index.adviseHugePages()
        if HugePages.allowed {
            #expect(regions >= 2)  // 4.5 MB of documents and the table's arrays
            #expect(collapsed <= regions)
        } else {
            #expect(regions == 0 && collapsed == 0)
        }
        for (key, body) in bodies {
            let stored = index.resource(key)
            #expect(stored?.body == body)
            #expect(stored?.etag == "\"e\(key.dropFirst().prefix { $0 != "." })\"")
        }
        #expect(index.count == 6_000)
        #expect(index.insert(key: "h0.huge.example".utf8, etag: "\"new\"".utf8, body: [1, 2, 3], version: 2))
        #expect(index.resource("h0.huge.example")?.body == [1, 2, 3])
    }

    @Test func regionsAreAlignedAndCoverTheTable() {
        var table = KeyedSlots<ResourceBytes>()
        table.reserveCapacity(300_000)  // 1 Mi slots: an 8 MiB array of references and a 1 MiB array of tags
        var regions = Set<UInt>()
        table.addTableRegions(into: &regions)
        table.addElementRegions(ofSlots: 0..<table.capacity, into: &regions)
        #expect(regions.allSatisfy { $0 % HugePages.size == 0 })
        #expect(regions.count >= 4)
    }
}
