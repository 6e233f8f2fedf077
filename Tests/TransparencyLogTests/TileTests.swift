import Testing
import TransparencyLog

@Suite struct TileTests {
    /// C2SP tlog-tiles: "index 1234067 will be encoded as x001/x234/067".
    @Test func pathIndexOfTheSpec() {
        #expect(Tile.pathIndex(1_234_067) == "x001/x234/067")
        #expect(Tile.pathIndex(0) == "000")
        #expect(Tile.pathIndex(5) == "005")
        #expect(Tile.pathIndex(1000) == "x001/000")
        #expect(Tile(level: 0, index: 1_234_067).path == "tile/0/x001/x234/067")
        #expect(Tile(level: 2, index: 3, width: 17).path == "tile/2/003.p/17")
        #expect(Tile(level: 0, index: 1_234_067, width: 5).entriesPath == "tile/entries/x001/x234/067.p/5")
        #expect(Tile(level: 0, index: 7).entriesPath == "tile/entries/007")
    }

    /// A served path names one tile in one canonical form; anything else is no tile (a `404`).
    @Test func tilePathsParseInTheirCanonicalFormOnly() {
        for tile in [
            Tile(level: 0, index: 0), Tile(level: 0, index: 1_234_067), Tile(level: 2, index: 3, width: 17),
            Tile(level: 63, index: 999, width: 255), Tile(level: 1, index: 1000, width: 1),
        ] {
            #expect(Tile.parse(path: tile.path)?.tile == tile && Tile.parse(path: tile.path)?.isEntries == false)
            if tile.level == 0 {
                #expect(Tile.parse(path: tile.entriesPath)?.tile == tile)
                #expect(Tile.parse(path: tile.entriesPath)?.isEntries == true)
            }
        }
        for path in [
            "", "checkpoint", "tile/0", "tile/0/", "tile/0/00", "tile/0/0000", "tile/0/x000/001", "tile/0/001/002",
            "tile/0/x1/001", "tile/00/001", "tile/64/000", "tile/-1/000", "tile/0/000.p/0", "tile/0/000.p/256",
            "tile/0/000.p/01", "tile/0/000.p/", "tile/0/000.p", "tile/entries/000.p/5/6", "tile/entries/", "tile/0/+01",
            "tile/0/x001/x234/067/", "tile/x/000", "tiles/0/000",
        ] {
            #expect(Tile.parse(path: path) == nil, "\(path)")
        }
    }

    /// C2SP tlog-tiles: "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial level 0
    /// tile of width 112, one full level 1 tile, one partial level 1 tile of width 17, and one partial level 2 tile
    /// of width 1. Note that a tree of size 256 will be represented by a full level 0 tile and a partial level 1
    /// tile of width 1."
    @Test func tilesOfTheSpecExamples() {
        let tiles = Tile.all(treeSize: 70_000)
        #expect(tiles.filter { $0.level == 0 && !$0.isPartial }.count == 273)
        #expect(tiles.filter { $0.level == 0 && $0.isPartial } == [Tile(level: 0, index: 273, width: 112)])
        #expect(tiles.filter { $0.level == 1 } == [Tile(level: 1, index: 0), Tile(level: 1, index: 1, width: 17)])
        #expect(tiles.filter { $0.level == 2 } == [Tile(level: 2, index: 0, width: 1)])
        #expect(tiles.count == 273 + 1 + 2 + 1)
        #expect(Tile.all(treeSize: 256) == [Tile(level: 0, index: 0), Tile(level: 1, index: 0, width: 1)])
        #expect(Tile.all(treeSize: 0).isEmpty)
    }

    @Test func entryBundlesRoundTrip() throws {
        let entries: [[UInt8]] = [[], [1, 2, 3], Array(repeating: 7, count: 300), Array(repeating: 9, count: 65535)]
        let bundle = try EntryBundle.encode(entries)
        #expect(Array(bundle.prefix(7)) == [0, 0, 0, 3, 1, 2, 3])
        #expect(Array(bundle[7..<9]) == [0x01, 0x2C])
        #expect(try EntryBundle.decode(bundle) == entries)
        #expect(throws: LogError.self) { try EntryBundle.encode([Array(repeating: 0, count: 65536)]) }
        #expect(throws: LogError.self) { try EntryBundle.decode([0, 5, 1, 2]) }
        #expect(throws: LogError.self) { try EntryBundle.decode([0]) }
    }

    @Test func tileHashesServeEveryTileOfTheTree() throws {
        let log = TileHashes(
            leafHashes: (0..<600).map { hasher.leafHash([UInt8($0 & 0xFF), UInt8($0 >> 8)]) }, hasher: hasher)
        let tiles = Tile.all(treeSize: 600)
        #expect(tiles.map(\.path) == ["tile/0/000", "tile/0/001", "tile/0/002.p/88", "tile/1/000.p/2"])
        #expect(try log.data(of: tiles[0]).count == 8192)
        #expect(
            try log.data(of: tiles[3]) == hasher.rootHash(leafHashes: log.levels[0][0..<256])
                + hasher.rootHash(leafHashes: log.levels[0][256..<512]))
        #expect(throws: LogError.self) { try log.data(of: Tile(level: 0, index: 2)) }
    }
}
