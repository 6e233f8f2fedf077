import Foundation
internal import GRDB
import PinSetSigning
import PinSetStorage
import TransparencyLog

extension LogPublisher {
    /// What start-up did to the log.
    package struct Loaded: Sendable {
        /// Served documents that had no entry yet (written before the log was configured, or while the server
        /// ran without it), appended now.
        package let appended: Int
        /// The tree size after that.
        package let treeSize: Int
        /// The proofs built (the trust documents'; a pin document's is built when first asked for).
        package let proofs: Int
    }

    /// Start-up, before the HTTP listener: loads the log's hashes from the database, appends in ONE transaction
    /// every served document not logged yet (a pin document whose `logIndex` is NULL, a trust document without an
    /// entry holding its exact bytes), signs a checkpoint when the log grew past the stored one (or none is stored),
    /// and publishes the log's files and the trust documents' proofs, so every document served has a proof from the
    /// first request on: a pin document's is built when first asked for, from the bytes served (``ProofIndex``,
    /// ``LogState/storedIndex(of:)``).
    ///
    /// The log is read first, outside the writer: most starts write nothing here (every served document is logged,
    /// the checkpoint covers them), so they do not wait for start-up's integrity check, which every write waits for
    /// (``PinDatabase/holdWrites()``). A start that must append or sign takes the writer then, and waits for it.
    /// - Throws: ``StartupError`` (``StartupErrorCode/logKeyUnusable``) when the stored log is not this one
    ///   (another origin) or does not match its entries; the database's error otherwise.
    package func load() throws -> Loaded {
        var appended = 0
        var refused: LogError?
        let behind = try store.read { db -> Bool in
            do {
                try log.load(from: db)
            } catch let error as LogError {
                refused = error
                return false
            }
            return try !ServedLogIndexTable.unloggedHosts(db, after: 0, limit: 1).isEmpty
                || !ServedLogIndexTable.unloggedTrust(db, after: 0, limit: 1).isEmpty || log.checkpointIsBehind
        }
        if behind {
            try store.serializedWrite { db in
                var appends: [LogAppend] = []
                try db.inTransaction {
                    appends = []
                    // A thousand documents at a time, each page one append: the first start of a large database
                    // logs every document, and never holds all their bodies at once.
                    try Self.forEachUnloggedPage(db, ServedLogIndexTable.unloggedHosts) { documents in
                        let append = try log.append(documents.map(\.body), in: db)
                        for (document, index) in zip(documents, append.indices) {
                            try ServedLogIndexTable.setHost(db, hostId: document.id, leafIndex: index)
                        }
                        appends.append(append)
                    }
                    try Self.forEachUnloggedPage(db, ServedLogIndexTable.unloggedTrust) { documents in
                        let append = try log.append(documents.map(\.body), in: db)
                        for (document, index) in zip(documents, append.indices) {
                            try ServedLogIndexTable.setTrust(db, version: Int(document.id), leafIndex: index)
                        }
                        appends.append(append)
                    }
                    return .commit
                }
                for append in appends { log.didCommit(append) }
                appended = appends.reduce(0) { $0 + $1.indices.count }
                try signCheckpoint(db)
            }
        }
        if let refused {
            throw StartupError(
                code: .logKeyUnusable,
                description:
                    "the transparency log stored in the database is not the log \(log.origin) (\(refused.detail)); a log's origin never changes: start with the --log-origin it was created with"
            )
        }
        // Every served document is logged now: index the entries, so each pin document's proof is built from its
        // bytes when first asked for.
        log.indexStoredEntries()
        let trust = try store.read { db in try ServedLogIndexTable.servedTrust(db) }
        publishFiles()
        publish(trust.map { Pending(key: .trust($0.version), leafIndex: $0.leafIndex, etag: $0.etag) {} })
        return Loaded(appended: appended, treeSize: log.treeSize, proofs: proofs.count)
    }

    /// Calls `body` with the documents `page` lists, a thousand at a time in id order, until it lists none.
    private static func forEachUnloggedPage(
        _ db: Database, _ page: (Database, _ after: Int64, _ limit: Int) throws -> [ServedLogIndexTable.Unlogged],
        _ body: ([ServedLogIndexTable.Unlogged]) throws -> Void
    ) throws {
        var after = Int64.min
        while true {
            let documents = try page(db, after, 1000)
            guard let last = documents.last else { return }
            try body(documents)
            after = last.id
        }
    }
}
