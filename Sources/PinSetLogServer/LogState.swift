import Foundation
package import GRDB
import Locking
import PinSetCore
import PinSetStorage
import TransparencyLog

/// The server's transparency log (PROTOCOL §7.1): the entries and their hashes in SQLite, a copy of the hashes
/// in memory for proofs and tiles, and the latest checkpoint signed with the log key. The entries themselves stay
/// in SQLite only: an entry bundle is read from there when it is asked for (``bundle(_:in:)``).
///
/// Writes append inside the caller's transaction (``append(_:in:)``), so a document is stored and logged
/// together or not at all, and report the commit (``didCommit(_:)``); checkpoints are signed for what memory
/// holds, which is always a prefix of what SQLite holds, so the log never signs two inconsistent checkpoints.
package final class LogState: Sendable {
    /// The checkpoint origin, e.g. `pins.example.com/log`.
    package let origin: String
    private let signer: NoteSigner
    private let hasher: MerkleHasher
    private let memory = Locked(Memory())
    /// The hashes ``preload(from:)`` read, taken by ``load(from:)``.
    private let preloaded = Locked<SubtreeHashes?>(nil)

    private struct Memory {
        /// The leaves' complete subtrees at every level, for proofs, roots and tiles.
        var hashes = SubtreeHashes()
        /// The entries in memory when ``indexStoredEntries()`` was called (start-up), by leaf hash.
        var stored = LeafHashIndex()
        /// Commits reported out of order, waiting for the ones before them.
        var waiting: [Int: LogAppend] = [:]
        var checkpoint: SignedNote? = nil
        var checkpointSize = 0
        /// The largest checkpoint older than the latest that witnesses cosigned after a newer one was signed
        /// (writes kept coming during their round): proofs of the entries it includes can carry its cosignatures.
        var cosignedEarlier: (note: SignedNote, size: Int)? = nil
    }

    /// Creates an empty log; ``load(from:)`` fills it from the database.
    /// - Parameters:
    ///   - origin: the checkpoint origin line; the log key's name must be the same.
    ///   - signer: the log key (type 0x01).
    ///   - crypto: SHA-256 for hashing.
    package init(origin: String, signer: NoteSigner, crypto: any TrustCrypto) throws(LogError) {
        guard signer.key.type == .ed25519, signer.key.name == origin else {
            throw LogError(.malformed, "the log key must be an Ed25519 note key named after the origin \(origin)")
        }
        self.origin = origin
        self.signer = signer
        self.hasher = MerkleHasher(crypto: crypto)
    }

    /// Loads every entry's hash and the latest checkpoint (start-up), and checks that checkpoint against them. The
    /// stored leaf hashes are trusted (each was computed when its entry was appended): the entries' bodies are not
    /// read.
    /// - Throws: ``LogErrorCode/inconsistent`` when the stored entries have a gap, or the stored checkpoint does
    ///   not match them.
    ///
    /// After ``preload(from:)`` it reads only the entries appended since (none, when nothing wrote in between).
    package func load(from db: Database) throws {
        var hashes = preloaded.withLock { preloaded in
            defer { preloaded = nil }
            return preloaded ?? SubtreeHashes()
        }
        hashes.reserve(leaves: try LogTable.size(db))
        try LogTable.forEachLeafHash(db, from: hashes.leafCount) { index, leafHash in
            guard index == hashes.leafCount, leafHash.count == SubtreeHashes.hashBytes else {
                throw LogError(.inconsistent, "the stored log has no entry \(hashes.leafCount), or a bad hash there")
            }
            hashes.append(leafHash: leafHash, hasher: hasher)
        }
        var checkpoint: SignedNote? = nil
        var size = 0
        if let note = try LogTable.latestCheckpoint(db) {
            let parsed = try SignedNote(parsing: note)
            let body = try Checkpoint(text: parsed.text)
            guard body.origin == origin else {
                throw LogError(.inconsistent, "the stored checkpoint's origin is \(body.origin)")
            }
            let tree = MerkleTree(hasher: hasher, reader: hashes)
            guard body.size <= hashes.leafCount,
                try tree.rootHash(size: body.size) == body.rootHash
            else {
                throw LogError(
                    .inconsistent, "the stored checkpoint of size \(body.size) does not match the stored entries")
            }
            checkpoint = parsed
            size = body.size
        }
        memory.withLock { $0 = Memory(hashes: hashes, checkpoint: checkpoint, checkpointSize: size) }
    }

    /// Reads every stored entry's hash ahead of ``load(from:)`` (start-up: the long part of the log's load, in a
    /// read transaction, on a thread of its own beside the documents' load), which then reads only the entries
    /// appended since. Entries are only ever appended, so the hashes read here stay a prefix of the stored log.
    /// - Throws: ``LogErrorCode/inconsistent`` as ``load(from:)``; nothing is kept then, and ``load(from:)``
    ///   reads every entry itself.
    package func preload(from db: Database) throws {
        var hashes = SubtreeHashes()
        hashes.reserve(leaves: try LogTable.size(db))
        try LogTable.forEachLeafHash(db) { index, leafHash in
            guard index == hashes.leafCount, leafHash.count == SubtreeHashes.hashBytes else {
                throw LogError(.inconsistent, "the stored log has no entry \(hashes.leafCount), or a bad hash there")
            }
            hashes.append(leafHash: leafHash, hasher: hasher)
        }
        preloaded.withLock { $0 = hashes }
    }

    /// Appends `entries` (documents' exact bytes) inside the caller's write transaction, at the end of what the
    /// database holds. Call ``didCommit(_:)`` with the result once the transaction committed.
    /// - Throws: ``LogErrorCode/outOfRange`` for an entry over 65,535 bytes (an entry bundle cannot hold it),
    ///   or the database's error.
    package func append(_ entries: [[UInt8]], in db: Database) throws -> LogAppend {
        for entry in entries where entry.count > EntryBundle.maxEntryBytes {
            throw LogError(.outOfRange, "a document of \(entry.count) bytes cannot be logged (at most 65535)")
        }
        let first = try LogTable.size(db)
        let hashes = entries.map { hasher.leafHash($0) }
        try LogTable.insert(db, firstIndex: first, entries: entries, leafHashes: hashes)
        return LogAppend(firstIndex: first, leafHashes: hashes)
    }

    /// Adds a committed append to memory (in index order, whatever order commits are reported in).
    package func didCommit(_ append: LogAppend) {
        memory.withLock { memory in
            memory.waiting[append.firstIndex] = append
            while let next = memory.waiting.removeValue(forKey: memory.hashes.leafCount) {
                for hash in next.leafHashes { memory.hashes.append(leafHash: hash, hasher: hasher) }
            }
        }
    }

    /// Indexes every entry in memory by its leaf hash, for ``storedIndex(of:)``: start-up calls it once every
    /// served document is logged.
    package func indexStoredEntries() {
        memory.withLock { memory in
            memory.stored = LeafHashIndex(count: memory.hashes.leafCount) {
                LeafHashIndex.prefix(memory.hashes.leafHash($0))
            }
        }
    }

    /// The index of an entry indexed by ``indexStoredEntries()`` whose leaf hash is `leafHash`, if any.
    package func storedIndex(of leafHash: TreeHash) -> Int? {
        memory.withLock { memory in
            memory.stored.candidates(leafHash).first { memory.hashes.leafHash($0).elementsEqual(leafHash) }
        }
    }

    /// The leaf hash of `entry` (RFC 6962).
    package func leafHash(_ entry: some Collection<UInt8>) -> TreeHash { hasher.leafHash(entry) }

    /// The number of entries in memory (committed and applied).
    package var treeSize: Int { memory.withLock { $0.hashes.leafCount } }

    /// The log key's public side (its vkey is what client policies and witnesses are given).
    package var verifierKey: VerifierKey { signer.key }

    /// The size of the latest signed checkpoint (0 before the first).
    package var checkpointSize: Int { memory.withLock { $0.checkpointSize } }

    /// The latest signed checkpoint, with the cosignatures added so far.
    package var checkpoint: SignedNote? { memory.withLock { $0.checkpoint } }

    /// Whether ``signCheckpoint(in:at:)`` would sign: no checkpoint yet, or entries past the latest one.
    package var checkpointIsBehind: Bool {
        memory.withLock { $0.checkpoint == nil || $0.hashes.leafCount > $0.checkpointSize }
    }

    /// Signs a checkpoint of every entry in memory, if there are more than the latest checkpoint covers (or there
    /// is none yet), and stores it in `db` (the caller's write).
    /// - Returns: the new checkpoint, or `nil` when nothing new was logged.
    package func signCheckpoint(in db: Database, at now: Date) throws -> SignedNote? {
        let signed: (note: SignedNote, size: Int)? = try memory.withLock { memory in
            let size = memory.hashes.leafCount
            guard memory.checkpoint == nil || size > memory.checkpointSize else { return nil }
            let tree = MerkleTree(hasher: hasher, reader: memory.hashes)
            let text = try Checkpoint(origin: origin, size: size, rootHash: tree.rootHash(size: size)).text
            let note = SignedNote(text: text, signatures: [signer.signature(of: text, timestamp: 0)])
            try LogTable.saveCheckpoint(db, treeSize: size, note: note.bytes, signedAt: now)
            memory.checkpoint = note
            memory.checkpointSize = size
            return (note, size)
        }
        return signed?.note
    }

    /// Adds witnesses' cosignature lines to the checkpoint of `size` if it is still the latest, in memory and in
    /// `db`. Lines are not verified here: the caller checked them against its witnesses' keys.
    /// When a newer checkpoint was signed meanwhile, `note` (the checkpoint of `size` the witnesses were sent)
    /// with the lines is kept in memory as ``cosignedEarlier`` instead, if it is larger than the one kept: writes
    /// that never pause must not starve the proofs of cosignatures.
    package func addCosignatures(
        _ cosignatures: [NoteSignature], to sent: SignedNote? = nil, size: Int, in db: Database, at now: Date
    ) throws {
        try memory.withLock { memory in
            guard var note = memory.checkpoint, memory.checkpointSize == size else {
                guard var earlier = sent, size < memory.checkpointSize, size >= memory.cosignedEarlier?.size ?? 0
                else { return }
                if let kept = memory.cosignedEarlier, kept.size == size { earlier = kept.note }
                earlier.add(cosignatures)
                memory.cosignedEarlier = (earlier, size)
                return
            }
            note.add(cosignatures)
            try LogTable.saveCheckpoint(db, treeSize: size, note: note.bytes, signedAt: now)
            memory.checkpoint = note
        }
    }

    /// The earlier checkpoint witnesses cosigned while newer ones were signed (see ``addCosignatures``), if any.
    package var cosignedEarlier: (note: SignedNote, size: Int)? { memory.withLock { $0.cosignedEarlier } }

    /// The C2SP tlog-proof of entry `index` in `note`, a checkpoint of `size` this log signed.
    package func proof(index: Int, in note: SignedNote, size: Int) throws(LogError) -> LogProof {
        try memory.withLock { memory -> Result<LogProof, LogError> in
            guard index < size, size <= memory.hashes.leafCount else {
                return .failure(LogError(.outOfRange, "entry \(index) is not in the checkpoint of size \(size)"))
            }
            let tree = MerkleTree(hasher: hasher, reader: memory.hashes)
            return Result { () throws(LogError) in
                LogProof(
                    index: index, inclusionProof: try tree.inclusionProof(index: index, size: size), checkpoint: note)
            }
        }.get()
    }

    /// The C2SP tlog-proof of entry `index` in the latest checkpoint.
    /// - Throws: ``LogErrorCode/outOfRange`` when the latest checkpoint does not include it yet.
    package func proof(index: Int) throws(LogError) -> LogProof {
        try memory.withLock { memory -> Result<LogProof, LogError> in
            guard let note = memory.checkpoint, index < memory.checkpointSize else {
                return .failure(LogError(.outOfRange, "entry \(index) is not in a signed checkpoint yet"))
            }
            let tree = MerkleTree(hasher: hasher, reader: memory.hashes)
            return Result { () throws(LogError) in
                LogProof(
                    index: index, inclusionProof: try tree.inclusionProof(index: index, size: memory.checkpointSize),
                    checkpoint: note)
            }
        }.get()
    }

    /// The root hash of this log's tree at `size`, `nil` when the log has fewer entries (a fork's test, §7.2).
    package func rootHash(size: Int) -> TreeHash? {
        memory.withLock { memory in
            guard size >= 0, size <= memory.hashes.leafCount else { return nil }
            return try? MerkleTree(hasher: hasher, reader: memory.hashes).rootHash(size: size)
        }
    }

    /// The consistency proof between two sizes no larger than the entries in memory (for a witness).
    package func consistencyProof(from old: Int, to new: Int) throws(LogError) -> [TreeHash] {
        try memory.withLock { memory -> Result<[TreeHash], LogError> in
            guard new <= memory.hashes.leafCount else {
                return .failure(LogError(.outOfRange, "the log has no size \(new) yet"))
            }
            let tree = MerkleTree(hasher: hasher, reader: memory.hashes)
            return Result { () throws(LogError) in try tree.consistencyProof(from: old, to: new) }
        }.get()
    }

    /// The C2SP tlog-witness request for the latest checkpoint, for a witness that holds a checkpoint of
    /// `oldSize` (0 when it holds none, or to learn its size from the `409`).
    /// - Throws: ``LogErrorCode/outOfRange`` when there is no checkpoint yet or `oldSize` is over its size.
    /// - Parameter sent: the checkpoint to send (of `size`), when not the latest: a round asks every witness
    ///   about the checkpoint it started with, even if a newer one was signed meanwhile.
    package func witnessRequest(oldSize: Int, for sent: (note: SignedNote, size: Int)? = nil) throws(LogError)
        -> AddCheckpointRequest
    {
        try memory.withLock { memory -> Result<AddCheckpointRequest, LogError> in
            guard let latest = memory.checkpoint else {
                return .failure(LogError(.outOfRange, "no checkpoint is signed"))
            }
            let (note, size) = sent ?? (latest, memory.checkpointSize)
            guard oldSize <= size, size <= memory.checkpointSize else {
                return .failure(LogError(.outOfRange, "no checkpoint of size \(oldSize) or more is signed"))
            }
            let tree = MerkleTree(hasher: hasher, reader: memory.hashes)
            return Result { () throws(LogError) in
                AddCheckpointRequest(
                    oldSize: oldSize, consistencyProof: try tree.consistencyProof(from: oldSize, to: size),
                    checkpoint: note)
            }
        }.get()
    }

    /// The files served for the latest checkpoint that differ from those of a checkpoint of `oldSize`: the
    /// checkpoint, and every hash tile that is new or wider (all of them for `oldSize` 0), from memory.
    /// - Parameter full: whether to include full tiles (default `true`); the publisher leaves them out and makes
    ///   each when it is asked for (``hashTile(_:)``).
    package func files(changedSince oldSize: Int, full: Bool = true) -> [LogFile] {
        filesAndSize(changedSince: oldSize, full: full).files
    }

    private func filesAndSize(changedSince oldSize: Int, full: Bool) -> (files: [LogFile], size: Int) {
        memory.withLock { memory in
            guard let note = memory.checkpoint else { return ([], 0) }
            let size = memory.checkpointSize
            var files = [LogFile(path: "checkpoint", body: note.bytes, isFull: false)]
            for tile in Tile.all(treeSize: size)
            where (tile.isPartial || full)
                && tile.index >= Tile.hashCount(level: tile.level, treeSize: min(oldSize, size)) / Tile.fullWidth
            {
                // The tile exists at `size`, so its hashes are in memory.
                files.append(LogFile(path: tile.path, body: memory.hashes.data(of: tile)!, isFull: !tile.isPartial))
            }
            return (files, size)
        }
    }

    /// ``files(changedSince:full:)`` with each level-0 tile's entry bundle after it, read from `db`: everything a
    /// mirror copies (tests).
    /// - Throws: the database's error, or ``LogErrorCode/inconsistent`` when it lacks entries the checkpoint
    ///   covers (a read transaction older than the checkpoint).
    package func files(changedSince oldSize: Int, bundlesFrom db: Database) throws -> [LogFile] {
        let (tiles, size) = filesAndSize(changedSince: oldSize, full: true)
        var files: [LogFile] = []
        for file in tiles {
            files.append(file)
            guard let (tile, _) = Tile.parse(path: file.path), tile.level == 0 else { continue }
            guard let bundle = try Self.bundle(tile, size: size, in: db) else {
                throw LogError(.inconsistent, "the database has fewer entries than the checkpoint of size \(size)")
            }
            files.append(bundle.file)
        }
        return files
    }

    /// Hash tile `tile` (full or partial) from memory, or `nil` when the latest checkpoint does not cover it.
    package func hashTile(_ tile: Tile) -> LogFile? {
        memory.withLock { memory in
            guard Self.covers(tile, size: memory.checkpointSize), let body = memory.hashes.data(of: tile) else {
                return nil
            }
            return LogFile(path: tile.path, body: body, isFull: !tile.isPartial)
        }
    }

    /// The entry bundle of level-0 `tile` (full or partial), read from `db`, or `nil` when the latest checkpoint
    /// does not cover it.
    ///
    /// Each entry read back is checked against its leaf hash in memory (start-up reads the hashes, not the entries),
    /// so a damaged row is never served, also in the seconds before start-up's integrity check has passed.
    /// - Throws: `503 document-damaged` naming the entry when one does not match; the database's error.
    package func bundle(_ tile: Tile, in db: Database) throws -> LogFile? {
        guard let bundle = try Self.bundle(tile, size: checkpointSize, in: db) else { return nil }
        let start = tile.index * Tile.fullWidth
        let hashes = bundle.entries.map { hasher.leafHash($0) }
        let damaged = memory.withLock { memory in
            hashes.indices.first { !memory.hashes.leafHash(start + $0).elementsEqual(hashes[$0]) }
        }
        if let damaged {
            throw ServiceError(
                .documentDamaged,
                "the log's entry \(start + damaged) stored in the database does not match its leaf hash: the database is damaged; restore a backup (`pinset backup --check FILE` checks one)"
            )
        }
        return bundle.file
    }

    /// The entry bundle of level-0 `tile` in a log whose checkpoint has `size` entries, or `nil` when `tile` is
    /// beyond it or `db` lacks some of its entries.
    private static func bundle(_ tile: Tile, size: Int, in db: Database) throws -> (
        file: LogFile, entries: [[UInt8]]
    )? {
        guard tile.level == 0, covers(tile, size: size) else { return nil }
        let start = tile.index * Tile.fullWidth
        let entries = try LogTable.entries(db, start..<(start + tile.width))
        guard entries.count == tile.width else { return nil }
        let file = LogFile(path: tile.entriesPath, body: try EntryBundle.encode(entries), isFull: !tile.isPartial)
        return (file, entries)
    }

    /// Whether a tree of `size` leaves has `tile` (at its width, or a wider one).
    private static func covers(_ tile: Tile, size: Int) -> Bool {
        tile.index * Tile.fullWidth + tile.width <= Tile.hashCount(level: tile.level, treeSize: size)
    }
}
