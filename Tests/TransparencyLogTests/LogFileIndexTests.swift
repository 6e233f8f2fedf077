import Locking
import OpenSSLCrypto
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer

/// The files served under `/log/`: full tiles and bundles made once when first asked for, partial ones as
/// published, and a bundle that cannot be read an error (a `500`), never a missing file.
@Suite struct LogFileIndexTests {
    struct Unreadable: Error {}

    @Test func fullFilesAreMadeOnceAndAnUnreadableBundleThrows() throws {
        let made = Locked<[String]>([])
        let failing = Locked(false)
        let index = LogFileIndex(crypto: crypto) { tile, isEntries in
            let path = isEntries ? tile.entriesPath : tile.path
            if isEntries, failing.withLock({ $0 }) { throw Unreadable() }
            made.withLock { $0.append(path) }
            return LogFile(path: path, body: Array(path.utf8), isFull: !tile.isPartial)
        }
        let checkpoint = LogFile(path: "checkpoint", body: Array("note".utf8), isFull: false)
        let partial = LogFile(path: "tile/0/002.p/4", body: [UInt8](repeating: 1, count: 128), isFull: false)
        index.publish([checkpoint, partial], size: 516)
        #expect(try index.resource("checkpoint")?.body == checkpoint.body)
        #expect(try index.resource("tile/0/002.p/4")?.body == partial.body)
        #expect(try index.resource("tile/0/001")?.body == Array("tile/0/001".utf8))
        #expect(try index.resource("tile/0/001")?.key == "/log/tile/0/001")
        #expect(try index.resource("tile/entries/000") != nil)
        #expect(try index.resource("tile/entries/002.p/4")?.body == Array("tile/entries/002.p/4".utf8))
        #expect(made.withLock { $0 } == ["tile/0/001", "tile/entries/000", "tile/entries/002.p/4"], "each made once")
        for path in ["tile/0/002", "tile/entries/002", "tile/1/000", "tile/0/002.p/3", "tile/entries/002.p/5", "x"] {
            #expect(try index.resource(Substring(path)) == nil, "\(path)")
        }
        failing.withLock { $0 = true }
        #expect(try index.resource("tile/entries/000") != nil, "kept")
        #expect(throws: Unreadable.self) { try index.resource("tile/entries/001") }
        // The next checkpoint completes tile 2: its partial versions go.
        index.publish([LogFile(path: "checkpoint", body: Array("next".utf8), isFull: false)], size: 768)
        #expect(try index.resource("tile/0/002.p/4") == nil)
        #expect(try index.resource("checkpoint")?.body == Array("next".utf8))
    }
}
