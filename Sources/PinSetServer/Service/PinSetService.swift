import Foundation
import Locking
import Logging
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import PinSetLogServer
import PinSetSigning
import PinSetStorage

/// The pin set service: validates writes, versions and signs sets, stores them durably and publishes each
/// new document, in commit order, through the `publish` callback.
///
/// Every write runs alone on the database's writer connection, in one transaction, and calls `publish` after
/// COMMIT and before the next write starts. A write that changes nothing still makes a new version (simple and
/// honest: every acknowledged write is in the history). Reads run concurrently on reader connections.
package final class PinSetService: Sendable {
    let store: PinDatabase
    let signingKey: any DocumentSigner
    /// The configuration the service was created with (the HTTP layer reads `refreshInterval` from it).
    package let configuration: ServiceConfiguration
    let clock: @Sendable () -> Date
    let publish: @Sendable (PublishedDocument) -> Void
    /// The transparency log's publisher (PROTOCOL §7), `nil` when the server keeps no log.
    let log: LogPublisher?
    let logger: Logger
    let tokenCache = Locked(TokenCache())
    /// The largest `issuedAt` of any stored document, and when the clock's refusal was last logged.
    let clockState = Locked(ClockState())

    /// Creates the service and registers `signingKey`'s public key as the active key (earlier keys stay listed
    /// in ``keySet()``, inactive). Nothing is re-signed here: call ``resignDue()`` for that.
    ///
    /// - Parameters:
    ///   - clock: the time source (injectable for tests). Default `Date.init`.
    ///   - logger: where the service logs; default a logger labelled `pinset.service`.
    ///   - publish: called with every newly signed document, after it is committed, in commit order, from the
    ///     writing thread. It must be quick and must not call back into the service's write methods.
    package convenience init(
        store: PinDatabase, signingKey: any DocumentSigner, configuration: ServiceConfiguration,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "pinset.service"),
        publish: @escaping @Sendable (PublishedDocument) -> Void
    ) throws(ServiceError) {
        try self.init(
            store: store, signingKey: signingKey, configuration: configuration, clock: clock, logger: logger, log: nil,
            publish: publish)
    }

    /// The same, with a transparency log: every document is appended to it in the transaction that stores it,
    /// and `publish` is called by the log's publisher once a signed checkpoint includes the document.
    init(
        store: PinDatabase, signingKey: any DocumentSigner, configuration: ServiceConfiguration,
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "pinset.service"),
        log: LogPublisher?, publish: @escaping @Sendable (PublishedDocument) -> Void
    ) throws(ServiceError) {
        self.log = log
        self.logger = logger
        self.store = store
        self.signingKey = signingKey
        self.configuration = configuration
        self.clock = clock
        self.publish = publish
        let now = clock()
        try store.serializedWrite { db in
            try db.inTransaction {
                try SigningKeyTable.activate(db, kid: signingKey.kid, publicKey: signingKey.publicKey, now: now)
                return .commit
            }
        }
        try reloadTokens()
    }

    /// Every host (retired ones included, with 0 pins), by name.
    package func hosts() throws(ServiceError) -> [HostSummary] {
        try store.read { db in try HostRecords.summaries(db) }
    }

    /// The current set of `host`. 400 for a malformed host, 404 for an unknown one.
    package func detail(host: String) throws(ServiceError) -> HostDetail {
        let name = try Self.normalize(host)
        guard let state = try store.read({ db in try HostRecords.fetch(db, name: name) }) else {
            throw Self.unknownHost(name)
        }
        return state.detail
    }

    /// Every version of `host`, newest first. 400 for a malformed host, 404 for an unknown one.
    package func history(host: String) throws(ServiceError) -> [HistoryEntry] {
        let name = try Self.normalize(host)
        guard let entries = try store.read({ db in try HostRecords.history(db, name: name) }) else {
            throw Self.unknownHost(name)
        }
        return entries
    }

    /// Every key the server signs or has signed with, read from the database, oldest first.
    /// If the database fails, logs it and answers the active key alone.
    package func keySet() -> JWKSet {
        do {
            let keys = try store.read { db in try SigningKeyTable.all(db) }
            return JWKSet(keys: keys.map { Ed25519JWK(publicKey: $0.publicKey, kid: $0.kid) })
        } catch {
            logger.error("cannot read signing keys; answering the active key only", metadata: ["error": "\(error)"])
            return JWKSet(keys: [Ed25519JWK(publicKey: signingKey.publicKey, kid: signingKey.kid)])
        }
    }

    /// `text` in the protocol's host form, or a 400 ``ServiceError/Code/invalidHost``.
    static func normalize(_ text: String) throws(ServiceError) -> String {
        do {
            return try HostName.normalize(text)
        } catch {
            throw ServiceError(.invalidHost, "invalid host \"\(text.prefix(80))\": \(error.description)")
        }
    }

    static func unknownHost(_ name: String) -> ServiceError {
        ServiceError(.notFound, "no pin set for host \(name); create one with PUT /admin/hosts/\(name)")
    }
}
