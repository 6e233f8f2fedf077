import Foundation
import PinSetCore
import PinSetStorage

/// What the service knows of its clock against the documents it stored.
struct ClockState: Sendable {
    /// The largest `issuedAt` of any stored document (`nil` before the first read or without documents).
    var newestIssuedAt: Date?
    /// When the refusal to re-sign was last logged.
    var lastRefusalLogged: Date?
}

extension PinSetService {
    /// The largest `issuedAt` of any stored document, as last read or signed (`/metrics`, `pinset status`).
    package var newestIssuedAt: Date? { clockState.withLock { $0.newestIssuedAt } }

    /// Reads the largest `issuedAt` from the database (a scan of the documents: start-up and each re-signer run).
    @discardableResult
    func refreshNewestIssuedAt() throws(ServiceError) -> Date? {
        let newest = try store.read { db in try HostRecords.newestIssuedAt(db) }
        clockState.withLock { $0.newestIssuedAt = newest }
        return newest
    }

    /// Raises ``newestIssuedAt`` to `issuedAt` (a document just signed).
    func noteIssued(_ issuedAt: Date) {
        clockState.withLock { state in
            if state.newestIssuedAt.map({ $0 < issuedAt }) ?? true { state.newestIssuedAt = issuedAt }
        }
    }

    /// Why the clock must not be trusted to re-sign, or `nil`: it is more than the document lifetime ahead of the
    /// newest document (every document would be re-signed with its dates) and ``ServiceConfiguration/trustClock``
    /// is off.
    func clockRefusal(now: Date, newest: Date?) -> String? {
        guard !configuration.trustClock, let newest, now.timeIntervalSince(newest) > configuration.documentLifetime
        else { return nil }
        let days = Int(now.timeIntervalSince(newest) / 86_400)
        return
            "the clock (\(RFC3339.format(now))) is \(days) days ahead of the newest stored document (issued \(RFC3339.format(newest))), more than the document lifetime: re-signing now would date every document by this clock, and if it is wrong clients refuse them (notYetValid) once it is right again. Fix the clock, or, if it is right (the server was stopped that long), start with --trust-clock"
    }

    /// At start-up: why the clock must not be trusted (``clockRefusal(now:newest:)``), or `nil`; logs a clock
    /// behind the newest document. `newestIssuedAt` is the largest `issuedAt` stored when the caller has read it
    /// already (start-up's load does, ``HostRecords/forEachDocument(_:_:)``); `nil` reads it here (a scan).
    func clockRefusalAtStart(newestIssuedAt known: Date?? = nil) throws(ServiceError) -> String? {
        let now = clock()
        let newest: Date?
        if let known {
            newest = known
            clockState.withLock { $0.newestIssuedAt = known }
        } else {
            newest = try refreshNewestIssuedAt()
        }
        if let refusal = clockRefusal(now: now, newest: newest) { return refusal }
        if let newest, newest > now.addingTimeInterval(configuration.clockSkew) {
            logger.warning(
                "the clock is behind the newest document's issuedAt (signed while the clock was ahead): the re-signer re-signs those documents now",
                metadata: ["newestIssuedAt": "\(RFC3339.format(newest))", "now": "\(RFC3339.format(now))"])
        }
        return nil
    }

    /// Logs the refusal at `critical`, at most once an hour.
    func logClockRefusal(_ refusal: String, now: Date) {
        let due = clockState.withLock { state -> Bool in
            guard state.lastRefusalLogged.map({ now.timeIntervalSince($0) >= 3_600 || now < $0 }) ?? true else {
                return false
            }
            state.lastRefusalLogged = now
            return true
        }
        if due { logger.critical("not re-signing: \(refusal)") }
    }
}
