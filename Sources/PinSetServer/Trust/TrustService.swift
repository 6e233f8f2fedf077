import Foundation
internal import GRDB
import Locking
import Logging
import PinSetCore
import PinSetLogServer
import PinSetOpenSSL
import PinSetStorage

/// Trust documents on the server (PROTOCOL §6.3): checks a pushed document against the version before it (or
/// the root keys given at start-up), stores it durably, and serves every version from memory.
///
/// The server never holds a root private key: documents are signed offline (`pinset trust sign`) and pushed.
package final class TrustService: Sendable {
    /// Whether the server's signing key is listed by the newest stored trust document.
    package enum Delegation: String, Sendable {
        /// No root keys given and no trust document stored: the server works as without §6.
        case notConfigured
        /// Root keys given, but no trust document pushed yet.
        case noTrustDocument
        /// The newest trust document lists the server's signing key.
        case delegated
        /// The newest trust document does not list the server's signing key: clients that rely on root keys
        /// refuse its documents until a trust document naming it is pushed.
        case notDelegated
    }

    /// What a successful push stored.
    package struct PushOutcome: Encodable, Sendable {
        /// The version now newest.
        package let version: Int
        /// The `kid`s of the root keys that signed it.
        package let signers: [String]
        /// The `kid`s of the signing keys it delegates.
        package let signingKeys: [String]
        /// The name of the admin token that pushed it.
        package let tokenName: String
        /// After a planned rotation (PROTOCOL §6.3, `--next-key`): the `kid` the server signs with from now on;
        /// absent otherwise.
        package var rotatedTo: String? = nil
        /// After a planned rotation: how many host documents were re-signed with the new key before the answer.
        package var resigned: Int? = nil
        /// After a planned rotation: what the operator must do next (restart with the new key as `--key`).
        package var note: String? = nil
    }

    let store: PinDatabase
    /// The root keys given at start-up (version 0), or `nil` when none were.
    let roots: TrustAnchor?
    /// The `kid` of the key the server signs with now.
    package var signingKid: String { rotation?.signer.kid ?? startKid }
    private let startKid: String
    /// The service and the signer with its next key, when the server was started with `--next-key`.
    let rotation: (service: PinSetService, signer: RotatingSigner)?
    let index: TrustIndex
    let clock: @Sendable () -> Date
    /// Clock tolerance for a pushed document's `issuedAt`/`expiresAt`, as clients use. 300 seconds.
    let skew: TimeInterval = 300
    private let crypto = OpenSSLTrustCrypto()
    /// The transparency log's publisher (PROTOCOL §7), `nil` when the server keeps no log.
    let log: LogPublisher?
    /// Called after each accepted push (the app wakes its re-signer: documents it held back may be due now).
    private let accepted = Locked<(@Sendable () -> Void)?>(nil)

    /// Loads every stored trust document into memory.
    /// - Parameters:
    ///   - store: the database.
    ///   - rootKeys: raw Ed25519 root public keys (`--root-pub`); empty when none were given.
    ///   - rootThreshold: `--root-threshold`, 1...distinct keys.
    ///   - signingKid: the `kid` of the key the server signs with now.
    ///   - refreshInterval: the `max-age` of `GET /trust`.
    /// - Throws: 400 when the threshold is out of range; 500 when the database fails.
    package convenience init(
        store: PinDatabase, rootKeys: [[UInt8]], rootThreshold: Int, signingKid: String, refreshInterval: TimeInterval,
        clock: @escaping @Sendable () -> Date = Date.init
    ) throws(ServiceError) {
        try self.init(
            store: store, rootKeys: rootKeys, rootThreshold: rootThreshold, signingKid: signingKid,
            refreshInterval: refreshInterval, clock: clock, log: nil, rotation: nil)
    }

    /// The same, with a transparency log: a pushed document is appended to it in the transaction that stores it,
    /// and served once a signed checkpoint includes it. With `rotation` (a signer with a next key), a document
    /// that delegates the next key and drops the current one rotates the key (``push(_:tokenName:)``).
    init(
        store: PinDatabase, rootKeys: [[UInt8]], rootThreshold: Int, signingKid: String, refreshInterval: TimeInterval,
        clock: @escaping @Sendable () -> Date = Date.init, log: LogPublisher?,
        rotation: (service: PinSetService, signer: RotatingSigner)?
    ) throws(ServiceError) {
        self.log = log
        self.rotation = rotation
        self.store = store
        do {
            roots =
                rootKeys.isEmpty
                ? nil
                : try TrustAnchor(
                    version: 0, rootKeys: rootKeys, rootThreshold: rootThreshold, crypto: OpenSSLTrustCrypto())
        } catch {
            throw ServiceError(.badRequest, "root keys: \(error.detail)")
        }
        startKid = signingKid
        self.clock = clock
        index = TrustIndex(maxAge: Int(refreshInterval))
        for row in try store.read({ db in try TrustTable.all(db) }) {
            index.publish(version: row.version, body: row.body)
        }
    }

    /// Whether the server's key is delegated by the newest stored trust document.
    package func delegation() throws(ServiceError) -> Delegation {
        guard let newest = try store.read({ db in try TrustTable.newest(db) }) else {
            return roots == nil ? .notConfigured : .noTrustDocument
        }
        guard case .success(let verified) = TrustRules.verifySelfSigned(newest.body, crypto: crypto) else {
            return .notDelegated
        }
        return verified.signingKeys[signingKid] == nil ? .notDelegated : .delegated
    }

    /// The keys whose documents the re-signer must leave alone: the newest trust document's signing keys when it
    /// does not delegate the server's own key (a server restarted with its old key after a planned rotation, or
    /// with a new key before its trust document is pushed). Re-signing such a document with the server's key
    /// would turn one every root-key client accepts into one they all refuse. Empty otherwise (and on a read
    /// error: then the re-signer works as without §6).
    package func keysNotToReplace() -> Set<String> {
        guard let newest = try? store.read({ db in try TrustTable.newest(db) }),
            case .success(let verified) = TrustRules.verifySelfSigned(newest.body, crypto: crypto),
            verified.signingKeys[signingKid] == nil
        else { return [] }
        return Set(verified.signingKeys.keys)
    }

    /// `PUT /admin/trust`: checks `bytes` by PROTOCOL §6.2 steps 1–4 against the newest stored version (or the
    /// start-up root keys for the first), checks it is fresh and lists the server's signing key, stores it and
    /// serves it from the next request on.
    ///
    /// A server started with a next key also accepts a document that lists the next key but not the current one
    /// (a planned rotation, §6.3): in the same transaction it makes the next key active and re-signs every host's
    /// document with it, and it answers once those documents are served (re-signed documents first, then the
    /// trust document, so a client that fetches the new trust document then a pin set gets one that verifies).
    /// - Throws: 400 malformed; 409 no root keys and nothing stored; 422 with ``ServiceError/trustRule``.
    package func push(_ bytes: [UInt8], tokenName: String) throws(ServiceError) -> PushOutcome {
        try Self.refuseRepeatedMembers(bytes)
        let index = self.index
        let (outcome, tickets): (PushOutcome, [LogPublisher.Ticket]) = try store.serializedWrite { db in
            var result: (PushOutcome, [UInt8])?
            var append: LogAppend?
            var rotated: KeyRotation?
            do {
                try db.inTransaction {
                    let verified = try verifyNext(bytes, db)
                    let now = clock()
                    if let rejection = TrustRules.checkTime(verified.payload, now: now, skew: skew) {
                        throw ServiceError(rejection)
                    }
                    let rotates = try rotates(to: verified)
                    try TrustTable.insert(
                        db, version: verified.payload.version, body: verified.raw, issuedAt: verified.payload.issuedAt,
                        expiresAt: verified.payload.expiresAt, pushedAt: now, tokenName: tokenName)
                    if let log {
                        append = try log.log.append([verified.raw], in: db)
                        try ServedLogIndexTable.setTrust(
                            db, version: verified.payload.version, leafIndex: append!.firstIndex)
                    }
                    var outcome = PushOutcome(
                        version: verified.payload.version, signers: verified.signers,
                        signingKeys: verified.signingKeys.keys.sorted(), tokenName: tokenName)
                    if rotates, let rotation {
                        rotated = try rotation.service.rotateAndResignAll(db, signer: rotation.signer)
                        outcome.rotatedTo = rotation.signer.kid
                        outcome.resigned = rotated?.documents.count
                        outcome.note =
                            "the server now signs with its next key (kid \(rotation.signer.kid)): restart it with that key as --key and without --next-key; restarted with the old key it would sign every new write with a key this trust document no longer delegates, and root-key clients would refuse those documents"
                    }
                    result = (outcome, verified.raw)
                    return .commit
                }
            } catch {
                if let rotated, let rotation { rotation.signer.undoRotation(rotated.previous) }
                throw error
            }
            guard let (outcome, body) = result else {
                throw ServiceError(.storage, "the trust document was not stored")
            }
            // Committed; still inside the serialized section, so publication follows commit order. Re-signed
            // documents go first: once the new trust document is served, every pin set served verifies under it.
            var tickets: [LogPublisher.Ticket] = []
            if let rotated, let ticket = rotation?.service.published(rotated.documents) { tickets.append(ticket) }
            guard let log, let append else {
                index.publish(version: outcome.version, body: body)
                return (outcome, tickets)
            }
            let version = outcome.version
            let ticket = log.committed(
                [append],
                [
                    LogPublisher.Pending(
                        key: .trust(version), leafIndex: append.firstIndex, etag: PublishedDocument.etag(for: body),
                        publish: { index.publish(version: version, body: body) })
                ])
            return (outcome, tickets + [ticket])
        }
        if let kid = outcome.rotatedTo {
            rotation?.service.logger.notice(
                "planned key rotation: the pushed trust document delegates the next key, which now signs every document; restart the server with it as --key",
                metadata: [
                    "kid": "\(kid)", "resigned": "\(outcome.resigned ?? 0)", "trustVersion": "\(outcome.version)",
                ])
        }
        for ticket in tickets { try PinSetService.waitUntilServed(ticket) }
        accepted.withLock { $0 }?()
        return outcome
    }

    /// Sets what runs after each accepted push: the app wakes its re-signer, since a document signed by a key
    /// the new trust document no longer delegates is due now (``keysNotToReplace()`` changed).
    func whenAccepted(_ action: @escaping @Sendable () -> Void) {
        accepted.withLock { $0 = action }
    }

    /// PROTOCOL §6.2 steps 1–4 from the newest stored version, or from the start-up root keys for the first.
    private func verifyNext(_ bytes: [UInt8], _ db: Database) throws -> VerifiedTrustDocument {
        let anchor: TrustAnchor
        if let newest = try TrustTable.newest(db) {
            guard case .success(let previous) = TrustRules.verifySelfSigned(newest.body, crypto: crypto) else {
                throw ServiceError(.storage, "stored trust document \(newest.version) no longer parses")
            }
            anchor = previous.anchor
        } else if let roots {
            anchor = roots
        } else {
            throw ServiceError(
                .conflict,
                "this server was started without root keys: restart it with --root-pub (the root public keys apps ship) to accept a first trust document"
            )
        }
        switch TrustRules.verifyNext(bytes, after: anchor, crypto: crypto) {
        case .success(let value): return value
        case .failure(let rejection): throw ServiceError(rejection)
        }
    }

    /// Whether `verified` starts a planned rotation: it lists the next key and not the current one. `false` when
    /// it lists the current key.
    /// - Throws: 422 ``TrustRejectionCode/signingKeyNotListed`` when it lists neither.
    private func rotates(to verified: VerifiedTrustDocument) throws(ServiceError) -> Bool {
        let current = signingKid
        if verified.signingKeys[current] != nil { return false }
        if let next = rotation?.signer.nextKid, verified.signingKeys[next] != nil { return true }
        let nextKey = rotation?.signer.nextKid.map { " nor its next key (kid \($0))" } ?? ""
        throw ServiceError(
            TrustRejection(
                .signingKeyNotListed,
                "signingKeys does not list the key this server signs with now (kid \(current))\(nextKey); publishing it would make every client refuse the server's next documents"
            ))
    }

    /// 400 when the trust document, its payload or a protected header repeats a member name in one object: the
    /// document is then not one document to every reader (PROTOCOL §6.2 step 1).
    static func refuseRepeatedMembers(_ bytes: [UInt8]) throws(ServiceError) {
        var parts: [(String, [UInt8])] = [("the trust document", bytes)]
        if let document = try? TrustDocument.decode(json: bytes) {
            parts.append(("its payload", Base64URL.decode(document.payload) ?? []))
            for (index, signature) in document.signatures.enumerated() {
                parts.append(("signatures[\(index)].protected", Base64URL.decode(signature.protected) ?? []))
            }
        }
        for (what, json) in parts {
            if let name = JSONRepeatedMembers.first(in: json) {
                throw ServiceError(
                    .badRequest, "the member \"\(name.prefix(40))\" appears twice in one object of \(what)")
            }
        }
    }
}
