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

    private enum CodingKeys: String, CodingKey {
        case host, leafPin, count, firstSeen, lastSeen, matchesCurrentPin, knownPins, chain
    }

    /// Decodes a group; times are RFC 3339 strings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        host = try container.decode(String.self, forKey: .host)
        leafPin = try container.decode(String.self, forKey: .leafPin)
        count = try container.decode(Int.self, forKey: .count)
        firstSeen = try container.decode(RFC3339Date.self, forKey: .firstSeen).date
        lastSeen = try container.decode(RFC3339Date.self, forKey: .lastSeen).date
        matchesCurrentPin = try container.decode(Bool.self, forKey: .matchesCurrentPin)
        knownPins = try container.decode([String].self, forKey: .knownPins)
        chain = try container.decode([String].self, forKey: .chain)
    }

    /// Encodes a group; times as RFC 3339 strings.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(host, forKey: .host)
        try container.encode(leafPin, forKey: .leafPin)
        try container.encode(count, forKey: .count)
        try container.encode(RFC3339Date(firstSeen), forKey: .firstSeen)
        try container.encode(RFC3339Date(lastSeen), forKey: .lastSeen)
        try container.encode(matchesCurrentPin, forKey: .matchesCurrentPin)
        try container.encode(knownPins, forKey: .knownPins)
        try container.encode(chain, forKey: .chain)
    }
}
