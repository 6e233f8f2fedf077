import Foundation
internal import GRDB
import PinSetCore
import PinSetLogServer
import PinSetStorage

extension PinSetService {
    /// Signs `set` with the active key: returns the document and the payload JSON it carries
    /// (``PublishedDocument/signing(_:kid:signature:)``).
    func sign(_ set: PinSet) throws(ServiceError) -> (PublishedDocument, [UInt8]) {
        let signed = try PublishedDocument.signing(set, kid: signingKey.kid, signature: signature)
        noteIssued(set.issuedAt)
        return signed
    }

    /// The key's signature of `input`, or a 503 when the key cannot sign now (a hardware token removed): reads
    /// keep serving what is signed, and the next write tries the key again.
    func signature(_ input: [UInt8]) throws(ServiceError) -> [UInt8] {
        do {
            return try signingKey.sign(input)
        } catch {
            logger.error("signing failed", metadata: ["kid": "\(signingKey.kid)", "error": "\(error)"])
            throw ServiceError(
                .unavailable,
                "the signing key (kid \(signingKey.kid)) cannot sign now, so nothing was written: \(error). Published documents are still served; retry once the key is back"
            )
        }
    }

    /// Re-signs every document issued at least ``ServiceConfiguration/effectiveResignAfter`` ago or signed by a
    /// key that is no longer active: same version and pins, new `issuedAt`/`expiresAt`, hence a new ETag.
    /// Each is committed in its own serialized write and published (with a log: once a checkpoint includes it,
    /// without waiting); history is not touched.
    ///
    /// - Parameter keeping: keys whose documents are left as they are (``TrustService/keysNotToReplace()``).
    /// - Returns: how many documents were re-signed.
    ///
    /// Documents issued more than ``ServiceConfiguration/clockSkew`` in the future (signed while the clock was
    /// ahead) are re-signed too, with the current time. When the clock is more than the document lifetime ahead of
    /// the newest document, nothing is re-signed (logged at `critical`, at most hourly) unless
    /// ``ServiceConfiguration/trustClock``.
    package func resignDue(keeping: Set<String> = []) throws(ServiceError) -> Int {
        let threshold = configuration.effectiveResignAfter
        let kid = signingKey.kid
        let now = clock()
        let newest = try refreshNewestIssuedAt()
        if let refusal = clockRefusal(now: now, newest: newest) {
            logClockRefusal(refusal, now: now)
            return 0
        }
        if let newest, newest > now.addingTimeInterval(configuration.clockSkew) {
            logger.warning(
                "the clock is behind the newest document's issuedAt: re-signing the documents issued in the future, so clients accept them",
                metadata: ["newestIssuedAt": "\(RFC3339.format(newest))", "now": "\(RFC3339.format(now))"])
        }
        let candidates = try store.read { db in
            try HostRecords.dueForResigning(
                db, issuedBefore: now.addingTimeInterval(-threshold), activeKid: kid,
                issuedAfter: now.addingTimeInterval(configuration.clockSkew))
        }
        var count = 0
        for host in candidates {
            if try resign(host: host, threshold: threshold, keeping: keeping) { count += 1 }
        }
        return count
    }

    /// Re-signs one host's document if it is still due once inside the serialized section.
    private func resign(host: String, threshold: TimeInterval, keeping: Set<String>) throws(ServiceError) -> Bool {
        try store.serializedWrite { db in
            var document: PublishedDocument?
            var append: LogAppend?
            try db.inTransaction {
                let now = StoredTime.truncate(clock())
                guard let current = try HostRecords.fetch(db, name: host), !keeping.contains(current.document.kid),
                    current.document.issuedAt <= now.addingTimeInterval(-threshold)
                        || current.document.kid != signingKey.kid
                        || current.document.issuedAt > now.addingTimeInterval(configuration.clockSkew),
                    let payload = try HostRecords.payload(db, hostId: current.id, version: current.version)
                else { return .rollback }
                var set = try PinSet.decode(json: payload)
                set.issuedAt = now
                set.expiresAt = now.addingTimeInterval(configuration.documentLifetime)
                let (signed, _) = try sign(set)
                try HostRecords.replaceDocument(db, hostId: current.id, signed)
                append = try logDocument(db, hostId: current.id, signed)
                document = signed
                return .commit
            }
            guard let document else { return false }
            // Not waited for: the old document stays served until a checkpoint includes the new one.
            _ = published([(document, append)])
            return true
        }
    }
}
