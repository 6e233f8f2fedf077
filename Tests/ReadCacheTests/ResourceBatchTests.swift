import Testing

@testable import ReadCache

/// A bulk load's batches (``ResourceBatch``, ``ResourceIndex/insert(_:)``): what is refused, versions, and a
/// table grown from empty by batches alone.
@Suite struct ResourceBatchTests {
    private func batch(_ range: Range<Int>, version: Int = 1) -> ResourceBatch {
        var batch = ResourceBatch(capacity: range.count)
        for n in range {
            var key = "h\(n).example"
            var etag = "\"e\(n)\""
            var body = "body \(n) v\(version)"
            key.withUTF8 { key in
                etag.withUTF8 { etag in
                    body.withUTF8 { body in
                        batch.append(
                            key: UnsafeRawBufferPointer(key), etag: UnsafeRawBufferPointer(etag),
                            body: UnsafeRawBufferPointer(body), version: version)
                    }
                }
            }
        }
        return batch
    }

    private func index() -> ResourceIndex {
        ResourceIndex(contentType: "application/json", cacheControl: "max-age=1", responseCapacity: 16)
    }

    @Test func storesWhatItAcceptsAndNamesWhatItRefusesInOrder() {
        let index = index()
        var seen = 0
        // Refuses the bodies whose number ends in 7: 10 of the first 100.
        var checked = batch(0..<100)
        let refused = checked.keep { etag, body in
            seen += 1
            #expect(etag.first == UInt8(ascii: "\""))
            return !String(decoding: body, as: UTF8.self).split(separator: " ")[1].hasSuffix("7")
        }
        #expect(seen == 100 && checked.count == 90)
        index.insert(checked)
        #expect(refused == (0..<100).filter { $0 % 10 == 7 }.map { "h\($0).example" })
        #expect(index.count == 90)
        #expect(!index.contains("h17.example"))
        let found = index.resource("h18.example")
        #expect(found?.etag == "\"e18\"" && found?.body == Array("body 18 v1".utf8) && found?.version == 1)
    }

    @Test func manyBatchesGrowTheTableAndNeverPutAnOlderVersionBack() {
        let index = index()
        for start in stride(from: 0, to: 50_000, by: 4_096) {
            index.insert(batch(start..<min(start + 4_096, 50_000), version: 2))
        }
        #expect(index.count == 50_000)
        for n in stride(from: 0, to: 50_000, by: 997) {
            #expect(index.resource("h\(n).example")?.body == Array("body \(n) v2".utf8), "h\(n)")
        }
        // Version 1 again: refused by the version rule, not by the check. Version 3 replaces.
        index.insert(batch(0..<10, version: 1))
        #expect(index.resource("h3.example")?.version == 2)
        index.insert(batch(0..<10, version: 3))
        #expect(index.resource("h3.example")?.version == 3 && index.count == 50_000)
        #expect(!index.contains("h50000.example"))
    }
}
