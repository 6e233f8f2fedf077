import Foundation
internal import GRDB
import PinSetCore
import PinSetLogServer
import PinSetSigning
import PinSetStorage

extension PinSetService {
    /// The planned rotation's half in the pin sets (PROTOCOL §6.3), in the caller's transaction, which has just
    /// stored the trust document that delegates the next key: makes the next key active (in memory and in the
    /// key table) and re-signs every host's document with it, same version and pins, new `issuedAt`/`expiresAt`,
    /// each logged when the server keeps a log.
    ///
    /// Call it inside the serialized writer section; if the transaction then rolls back, call
    /// ``RotatingSigner/undoRotation(_:)`` with ``KeyRotation/previous``.
    /// - Returns: the key that was active and the re-signed documents, to publish after COMMIT; `nil` when
    ///   `signer` has no next key.
    func rotateAndResignAll(_ db: Database, signer: RotatingSigner) throws -> KeyRotation? {
        guard let previous = signer.rotate() else { return nil }
        var rotation = KeyRotation(previous: previous, documents: [])
        do {
            let now = StoredTime.truncate(clock())
            try SigningKeyTable.activate(db, kid: signer.kid, publicKey: signer.publicKey, now: now)
            let hosts = try HostRecords.dueForResigning(db, issuedBefore: .distantPast, activeKid: signer.kid)
            for host in hosts {
                guard let current = try HostRecords.fetch(db, name: host),
                    let payload = try HostRecords.payload(db, hostId: current.id, version: current.version)
                else { continue }
                var set = try PinSet.decode(json: payload)
                set.issuedAt = now
                set.expiresAt = now.addingTimeInterval(configuration.documentLifetime)
                let (signed, _) = try sign(set)
                try HostRecords.replaceDocument(db, hostId: current.id, signed)
                rotation.documents.append((signed, try logDocument(db, hostId: current.id, signed)))
            }
        } catch {
            signer.undoRotation(previous)
            throw error
        }
        return rotation
    }
}

/// What ``PinSetService/rotateAndResignAll(_:signer:)`` did, for after COMMIT (or for undoing on rollback).
struct KeyRotation {
    /// The key active before the rotation.
    let previous: any DocumentSigner
    /// Every host's re-signed document, with its log entry.
    var documents: [(document: PublishedDocument, append: LogAppend?)]
}
