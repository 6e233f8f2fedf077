import Testing

@testable import PinSetLogServer
@testable import PinSetServer

/// Log entries found by leaf hash: every entry whose hash begins alike is a candidate, in index order.
@Suite struct LeafHashIndexTests {
    static func hash(_ prefix: UInt64, _ rest: UInt8) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: prefix >> (56 - 8 * $0)) } + [UInt8](repeating: rest, count: 24)
    }

    @Test func entriesAreFoundByTheirHashesFirstBytes() {
        // Entry i begins with (i * 7919) % 1000: 1000 distinct prefixes, then entries 1000..<1010 repeat some.
        let prefixes = (0..<1010).map { UInt64(($0 * 7919) % 1000) * 0x0101_0101_0101 }
        let index = LeafHashIndex(count: prefixes.count) { prefixes[$0] }
        #expect(index.count == 1010)
        #expect(LeafHashIndex.prefix(Self.hash(0x0102_0304_0506_0708, 9)) == 0x0102_0304_0506_0708)
        #expect(index.candidates(Self.hash(prefixes[500], 1)) == [500])
        #expect(index.candidates(Self.hash(prefixes[3], 2)) == [3, 1003])
        #expect(index.candidates(Self.hash(prefixes[0], 2)) == [0, 1000])
        #expect(index.candidates(Self.hash(0xFFFF_FFFF_FFFF_FFFF, 0)).isEmpty)
        #expect(LeafHashIndex().candidates(Self.hash(0, 0)).isEmpty)
    }
}
