import Foundation
import PinSetCore

/// Reports of one host whose chains had the same leaf key, as `GET /admin/reports` lists them.
public struct ReportGroup: Codable, Sendable, Hashable {
    /// The pinned host the reports were about (`noted-hostname`, else `hostname`).
    public var host: String
    /// The SPKI pin of the reported chain's leaf.
    public var leafPin: String
    /// How many reports, duplicates included.
    public var count: Int
    /// The first report.
    public var firstSeen: Date
    /// The latest report.
    public var lastSeen: Date
    /// Whether a certificate of the latest reported chain matches a pin of the host's current set
    /// (then the client held an older set: a rotation it had not picked up yet).
    public var matchesCurrentPin: Bool
    /// The pins the client said it knew, as sent.
    public var knownPins: [String]
    /// The latest reported chain, PEM, leaf first.
    public var chain: [String]

    /// Creates a group.
    public init(
        host: String, leafPin: String, count: Int, firstSeen: Date, lastSeen: Date, matchesCurrentPin: Bool,
        knownPins: [String], chain: [String]
    ) {
        self.host = host
        self.leafPin = leafPin
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.matchesCurrentPin = matchesCurrentPin
        self.knownPins = knownPins
        self.chain = chain
    }
}
