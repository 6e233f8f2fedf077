import Foundation
internal import GRDB
import PinSetCore

extension PinDatabase {
    /// Development and benchmarks only (`pinset seed`): makes `kid` the active signing key, then stores the next
    /// version of each host of `sets` (a new host at version 1), enforcing, with the default lifetime and no
    /// `reportUri`, signed by `signature`, all in one transaction. The same checks, versioning, history and signing
    /// as a `PUT /admin/hosts/{host}` of a server without a transparency log, without running one.
    ///
    /// - Parameters:
    ///   - sets: normalised host names with their pins.
    ///   - publicKey: the raw Ed25519 public key of `kid`, listed with the server's keys.
    ///   - signature: the key's signature of the bytes it is given.
    ///   - tokenName: the name the history records for these versions.
    package func seed(
        _ sets: [(host: String, pins: [Pin])], kid: String, publicKey: [UInt8], tokenName: String,
        signature: ([UInt8]) throws(ServiceError) -> [UInt8]
    ) throws(ServiceError) {
        let now = StoredTime.truncate(Date())
        try serializedWrite { db in
            try db.inTransaction {
                try SigningKeyTable.activate(db, kid: kid, publicKey: publicKey, now: now)
                for (host, pins) in sets {
                    try Self.seed(db, host: host, pins: pins, now: now, kid: kid, tokenName: tokenName, signature)
                }
                return .commit
            }
        }
    }

    private static func seed(
        _ db: Database, host: String, pins: [Pin], now: Date, kid: String, tokenName: String,
        _ signature: ([UInt8]) throws(ServiceError) -> [UInt8]
    ) throws {
        do throws(PinSetError) {
            try PinSet.checkSafetyRules(pins: pins, enforce: true, now: now)
        } catch {
            throw ServiceError(error)
        }
        let current = try HostRecords.fetch(db, name: host)
        let set = PinSet(
            host: host, version: (current?.version ?? 0) + 1, issuedAt: now,
            expiresAt: now.addingTimeInterval(PublishedDocument.defaultLifetime), includeSubdomains: false,
            enforce: true, pins: pins, reportUri: nil)
        let (document, payload) = try PublishedDocument.signing(set, kid: kid, signature: signature)
        let version = HostRecords.NewVersion(
            set: set, payload: payload, document: document, after: current?.pins ?? [], retired: false,
            tokenName: tokenName, change: current == nil || current!.retired ? .create : .replace)
        try HostRecords.save(db, version, existingId: current?.id)
    }
}
