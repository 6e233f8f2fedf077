import Foundation
internal import GRDB
import PinSetSigning
import TransparencyLog

extension LogPublisher {
    /// What start-up did to the log.
    struct Loaded: Sendable {
        /// Served documents that had no entry yet (written before the log was configured, or while the server
        /// ran without it), appended now.
        let appended: Int
        /// The tree size after that.
        let treeSize: Int
        /// The proofs served.
        let proofs: Int
    }

    /// Start-up, before the HTTP listener: loads the log from the database, appends every served document (pin
    /// and trust documents) that has no entry with its exact bytes in ONE transaction, signs a checkpoint when
    /// the log grew past the stored one (or none is stored), and builds every served document's proof and the
    /// log's files, so every document served has a proof from the first request on.
    /// - Throws: ``StartupError`` (``StartupError/Code/logKeyUnusable``) when the stored log is not this one
    ///   (another origin) or does not match its entries; the database's error otherwise.
    func load() throws -> Loaded {
        var appended = 0
        var refused: LogError?
        try store.serializedWrite { db in
            do {
                try log.load(from: db)
            } catch let error as LogError {
                refused = error
                return
            }
            var appends: [LogAppend] = []
            try db.inTransaction {
                appends = []
                for document in try ServedLogIndexTable.unloggedHosts(db) {
                    let append = try log.append([document.body], in: db)
                    try ServedLogIndexTable.setHost(db, hostId: document.id, leafIndex: append.firstIndex)
                    appends.append(append)
                }
                for document in try ServedLogIndexTable.unloggedTrust(db) {
                    let append = try log.append([document.body], in: db)
                    try ServedLogIndexTable.setTrust(db, version: Int(document.id), leafIndex: append.firstIndex)
                    appends.append(append)
                }
                return .commit
            }
            for append in appends { log.didCommit(append) }
            appended = appends.count
            try signCheckpoint(db)
        }
        if let refused {
            throw StartupError(
                code: .logKeyUnusable,
                description:
                    "the transparency log stored in the database is not the log \(log.origin) (\(refused.detail)); a log's origin never changes: start with the --log-origin it was created with"
            )
        }
        let (hosts, trust) = try store.read { db in
            (try ServedLogIndexTable.servedHosts(db), try ServedLogIndexTable.servedTrust(db))
        }
        publishFiles()
        publish(
            hosts.map { Pending(key: .pins($0.key), leafIndex: $0.leafIndex, etag: $0.etag, version: $0.version) {} }
                + trust.map {
                    Pending(key: .trust($0.version), leafIndex: $0.leafIndex, etag: $0.etag, version: $0.version) {}
                })
        return Loaded(appended: appended, treeSize: log.treeSize, proofs: proofs.count)
    }
}
