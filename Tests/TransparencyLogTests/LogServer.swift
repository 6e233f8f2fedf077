import Foundation
import OpenSSLCrypto
import PinSetWitness
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer
@testable import PinSetStorage

/// A pin server's log with its witnesses, in process.
final class LogServer {
    static let origin = "pins.example.com/log"

    let directory: URL
    let store: PinDatabase
    let signer: NoteSigner
    let log: LogState
    let witnesses: [Witness]
    /// The size each witness holds, as the server believes.
    var witnessSizes: [Int]

    init(logKey: Ed25519SigningKey, witnesses: [Witness]) throws {
        directory = try makeTemporaryDirectory("pinset-log")
        store = try PinDatabase(path: directory.appendingPathComponent("pinset.sqlite").path)
        signer = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey)
        log = try LogState(origin: LogServer.origin, signer: signer, crypto: crypto)
        self.witnesses = witnesses
        witnessSizes = witnesses.map { _ in 0 }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A server with a fresh log key and one witness, `w1.example`, whose database lives in `directory`.
    static func withOneWitness(in directory: URL) throws -> (server: LogServer, witness: Witness) {
        let logKey = try Ed25519SigningKey.generate()
        let logVKey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key
        let witness = try Witness(
            signer: NoteSigner(name: "w1.example", type: .cosignature, key: Ed25519SigningKey.generate()),
            logs: [logVKey], databasePath: directory.appendingPathComponent("w1.sqlite").path, crypto: crypto)
        return (try LogServer(logKey: logKey, witnesses: [witness]), witness)
    }

    /// Appends `documents` in one committed transaction, as a write would, and reports the commit.
    func write(_ documents: [String]) throws {
        let append = try store.serializedWrite { db in
            var result: LogAppend? = nil
            try db.inTransaction {
                result = try log.append(documents.map { Array($0.utf8) }, in: db)
                return .commit
            }
            return result!
        }
        log.didCommit(append)
    }

    /// Signs a checkpoint of what was written, if anything new was.
    func sign() throws -> SignedNote? {
        try store.serializedWrite { db in try log.signCheckpoint(in: db, at: Date()) }
    }

    /// Writes `documents`, signs a checkpoint and asks every witness to cosign it (once more after a 409, with
    /// the size the witness holds). Returns the witnesses' statuses.
    @discardableResult
    func publish(_ documents: [String]) throws -> [Int] {
        try write(documents)
        let note = try #require(try sign())
        let size = try Checkpoint(text: note.text).size
        var statuses: [Int] = []
        for (i, witness) in witnesses.enumerated() {
            var request = try log.witnessRequest(oldSize: witnessSizes[i])
            var answer = witness.addCheckpoint(request.bytes)
            if answer.status == 409, let held = Int(String(decoding: answer.body, as: UTF8.self).dropLast()) {
                request = try log.witnessRequest(oldSize: min(held, size))
                answer = witness.addCheckpoint(request.bytes)
            }
            statuses.append(answer.status)
            guard answer.status == 200 else { continue }
            witnessSizes[i] = size
            let lines = try request.cosignatures(
                inResponse: answer.body, witness: witness.verifierKey, crypto: crypto)
            try store.serializedWrite { db in try log.addCosignatures(lines, size: size, in: db, at: Date()) }
        }
        return statuses
    }

    /// Every file the log serves for its latest checkpoint that is new or wider than at `oldSize`, entry bundles
    /// (read from the database) included.
    func files(changedSince oldSize: Int) throws -> [LogFile] {
        try store.read { db in try log.files(changedSince: oldSize, bundlesFrom: db) }
    }

    /// The served tiles, by path, as a client reads them.
    func reader() -> TileReader {
        let files = Dictionary(uniqueKeysWithValues: log.files(changedSince: 0).map { ($0.path, $0.body) })
        return TileReader(treeSize: log.treeSize, hasher: hasher) { tile in
            guard let bytes = files[tile.path] else { throw LogError(.missingHash, tile.path) }
            return bytes
        }
    }
}
