import Foundation
import PinSetAdminAPI
import PinSetCore

/// A host's current state as stored: its policy, pins and current document.
struct HostState: Sendable {
    var id: Int64
    var name: String
    var version: Int
    var includeSubdomains: Bool
    var enforce: Bool
    var reportUri: String?
    var retired: Bool
    var updatedAt: Date
    var pins: [Pin]
    var document: PublishedDocument

    /// The admin view of this state.
    var detail: HostDetail {
        HostDetail(
            host: name, version: version, etag: document.etag, issuedAt: document.issuedAt,
            expiresAt: document.expiresAt, updatedAt: updatedAt, includeSubdomains: includeSubdomains,
            enforce: enforce, pins: pins, reportUri: reportUri, kid: document.kid)
    }
}

/// Conversions between `Date` and the integer seconds the schema stores.
enum StoredTime {
    /// Whole seconds since 1970, rounded down (the protocol's precision).
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    /// The date for stored seconds.
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
    /// `date` truncated to whole seconds.
    static func truncate(_ date: Date) -> Date { Self.date(seconds(date)) }
}
