import Foundation

/// What a ``PinningClient`` holds for one configured host: a snapshot for a settings screen, a log line or a
/// SwiftUI view (`PinSetStatusModel` on Apple platforms).
public struct PinSetHostStatus: Sendable, Hashable {
    /// Whether the host's set can be relied on now.
    public enum Freshness: Sendable, Hashable {
        /// No set yet: connections are refused (``PinningOptions/missingSets``) until one arrives.
        case missing
        /// The set in force has not reached its `expiresAt`.
        case fresh(expiresAt: Date)
        /// The set in force passed its `expiresAt` (plus skew) and no fresher one could be fetched
        /// (``PinningOptions/staleSetPolicy`` says what happens).
        case stale(since: Date)
    }

    /// The host.
    public let host: String
    /// The version of the set in force, if any.
    public let version: Int?
    /// Whether that set is fresh, stale or missing.
    public let freshness: Freshness
    /// When a fetch last succeeded (`200` accepted or `304`), if one did since launch.
    public let lastSuccess: Date?
    /// The last thing that went wrong for this host since launch (a refused document, a failed fetch, a pin
    /// failure), as a sentence; `nil` when nothing did or a success came after it.
    public let lastFailure: String?
    /// The last pin failure for this host since launch, if any (kept after later successes).
    public let lastPinFailure: PinFailure?
}

/// What a client recorded per host from its updater's events (platform-neutral; the status is built from it
/// and the sets in force).
struct HostRecord: Sendable {
    var lastSuccess: Date?
    var lastFailure: String?
    var lastPinFailure: PinFailure?

    /// Records `event` when it concerns a host; returns that host.
    @discardableResult
    static func record(_ event: UpdateEvent, at now: Date, into records: inout [String: HostRecord]) -> String? {
        switch event {
        case .updated(let host, _), .notModified(let host):
            records[host, default: HostRecord()].lastSuccess = now
            records[host, default: HostRecord()].lastFailure = nil
            return host
        case .rejected(let host, let rejection):
            records[host, default: HostRecord()].lastFailure = "document refused: \(rejection)"
            return host
        case .fetchFailed(let host, let error):
            records[host, default: HostRecord()].lastFailure = "fetch failed: \(error)"
            return host
        case .persistenceFailed(let host, let error):
            records[host, default: HostRecord()].lastFailure = "not persisted: \(error)"
            return host
        case .pinFailure(let failure):
            let host = failure.notedHost
            records[host, default: HostRecord()].lastPinFailure = failure
            records[host, default: HostRecord()].lastFailure =
                "pin failure for \(failure.host) (\(failure.classification?.rawValue ?? "unclassified"))"
            return host
        default:
            return nil
        }
    }
}
