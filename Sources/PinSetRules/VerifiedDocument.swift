import Foundation
import PinSetCore

/// A document that passed every check of PROTOCOL §5.
public struct VerifiedDocument: Sendable, Hashable {
    /// The signed pin set.
    public let pinSet: PinSet
    /// The document exactly as received (what gets persisted).
    public let raw: [UInt8]
    /// The id of the trusted key that signed it.
    public let kid: String

    /// The version marker rollback protection compares against.
    public var acceptedVersion: AcceptedVersion {
        AcceptedVersion(version: pinSet.version, issuedAt: pinSet.issuedAt)
    }
}

/// The highest document already accepted for a host (PROTOCOL §5 step 6).
public struct AcceptedVersion: Sendable, Hashable, Comparable {
    /// The document version.
    public let version: Int
    /// When that version was signed; breaks ties between re-signings of one version.
    public let issuedAt: Date

    /// Creates a marker.
    public init(version: Int, issuedAt: Date) {
        self.version = version
        self.issuedAt = issuedAt
    }

    /// A floor that refuses every version below `version` (the CLI's `--min-version`).
    public static func minimum(_ version: Int) -> AcceptedVersion {
        AcceptedVersion(version: version, issuedAt: .distantPast)
    }

    /// Orders by version, then by `issuedAt`.
    public static func < (lhs: AcceptedVersion, rhs: AcceptedVersion) -> Bool {
        (lhs.version, lhs.issuedAt) < (rhs.version, rhs.issuedAt)
    }
}
