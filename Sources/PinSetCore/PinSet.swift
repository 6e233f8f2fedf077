import Foundation

/// A signed document's payload: the pins of one host plus its policy (PROTOCOL §2).
public struct PinSet: Codable, JSONMembers, Sendable, Hashable {
    /// The host, normalised (``HostName/normalize(_:)``).
    public var host: String
    /// Goes up by one with every change of the set for this host; never reused. At least 1.
    public var version: Int
    /// When this document was signed (seconds precision).
    public var issuedAt: Date
    /// The document's own freshness limit (not a pin's).
    public var expiresAt: Date
    /// The set also applies to every name below ``host``.
    public var includeSubdomains: Bool
    /// `false` means report-only: failures are reported, connections are not blocked.
    public var enforce: Bool
    /// The pins; empty means "this host is no longer pinned".
    public var pins: [Pin]
    /// Where clients POST pin failure reports.
    public var reportUri: String?

    /// The most pins one set may hold (PROTOCOL §4).
    public static let maxPins = 64

    /// Creates a payload.
    public init(
        host: String, version: Int, issuedAt: Date, expiresAt: Date, includeSubdomains: Bool = false,
        enforce: Bool = true, pins: [Pin], reportUri: String? = nil
    ) {
        self.host = host
        self.version = version
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.includeSubdomains = includeSubdomains
        self.enforce = enforce
        self.pins = pins
        self.reportUri = reportUri
    }

    private enum CodingKeys: String, CodingKey {
        case host, version, issuedAt, expiresAt, includeSubdomains, enforce, pins, reportUri
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        host = try container.decode(String.self, forKey: .host)
        version = try container.decode(Int.self, forKey: .version)
        issuedAt = try container.decodeRFC3339(forKey: .issuedAt)
        expiresAt = try container.decodeRFC3339(forKey: .expiresAt)
        includeSubdomains = try container.decode(Bool.self, forKey: .includeSubdomains)
        enforce = try container.decode(Bool.self, forKey: .enforce)
        pins = try container.decode([Pin].self, forKey: .pins)
        reportUri = try container.decodeIfPresent(String.self, forKey: .reportUri)
    }

    /// Encodes the members of ``writeMembers(to:)``.
    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }

    /// The payload's members, in sorted order: the one list both its `Encodable` and ``encodedJSON()`` write.
    public func writeMembers<Sink: JSONMemberSink>(to sink: inout Sink) throws(Sink.Failure) {
        try sink.member("enforce", enforce)
        try sink.member("expiresAt", expiresAt)
        try sink.member("host", host)
        try sink.member("includeSubdomains", includeSubdomains)
        try sink.member("issuedAt", issuedAt)
        try sink.member("pins", pins)
        if let reportUri { try sink.member("reportUri", reportUri) }
        try sink.member("version", version)
    }

    /// The payload's canonical JSON bytes: sorted keys, no escaped slashes, byte for byte what `JSONEncoder`
    /// with `[.sortedKeys, .withoutEscapingSlashes]` writes for it (see ``JSONWriter``). Used by the signer.
    public func encodedJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + 160 * pins.count)
        writer.members(of: self)
        return writer.bytes
    }

    /// Decodes a payload from JSON bytes and checks its structure (host form, version ≥ 1, each pin's fields).
    public static func decode(json: some Collection<UInt8>) throws -> PinSet {
        let set = try canonical(json: json) ?? JSONDecoder().decode(PinSet.self, from: Data(json))
        try set.checkStructure()
        return set
    }

    /// The payload read as the server writes it (``encodedJSON()``, byte for byte), unchecked; `nil` for any other
    /// bytes. Such bytes name each member once (the writer writes each once), so they repeat no member name.
    package static func canonical(json: some Collection<UInt8>) -> PinSet? {
        json.withContiguousStorageIfAvailable(decodeCanonical) ?? Array(json).withUnsafeBufferPointer(decodeCanonical)
    }

    /// The structure ``decode(json:)`` checks: host form, version ≥ 1, at most ``maxPins`` pins, each pin's fields.
    package func checkStructure() throws {
        guard (try? HostName.normalize(host)) == host else {
            throw PinSetError(.invalidHost, "payload host \"\(host.prefix(80))\" is not a normalised DNS name")
        }
        guard version >= 1 else { throw PinSetError(.invalidDocument, "payload version must be at least 1") }
        guard pins.count <= Self.maxPins else {
            throw PinSetError(.tooManyPins, "a set holds at most \(Self.maxPins) pins")
        }
        for pin in pins { try pin.validate() }
    }

    /// The write-time safety rules of PROTOCOL §4, checked against `now`.
    ///
    /// - an enforcing set has at least two distinct pins, one of them with role `backup`;
    /// - no duplicates, no pin already expired;
    /// - at most ``maxPins`` pins, each valid (``Pin/validateForWriting()``).
    public static func checkSafetyRules(pins: [Pin], enforce: Bool, now: Date) throws(PinSetError) {
        guard pins.count <= maxPins else {
            throw PinSetError(.tooManyPins, "a set holds at most \(maxPins) pins; this one has \(pins.count)")
        }
        var seen = Set<String>()
        for pin in pins {
            try pin.validateForWriting()
            guard seen.insert("\(pin.type.rawValue):\(pin.sha256)").inserted else {
                throw PinSetError(
                    .duplicatePin, "duplicate pin: \(pin.sha256) (\(pin.type.rawValue)) appears more than once")
            }
            if let expiresAt = pin.expiresAt, expiresAt <= now {
                throw PinSetError(
                    .expiredPin,
                    "pin \(pin.sha256) has expiresAt \(RFC3339.format(expiresAt)), which is not in the future")
            }
        }
        if enforce, !pins.isEmpty {
            guard seen.count >= 2 else {
                throw PinSetError(
                    .backupRuleViolated,
                    "backup rule: an enforcing set needs at least two distinct pins, one of them with role \"backup\" (or set enforce to false for report-only)"
                )
            }
            guard pins.contains(where: { $0.role == .backup }) else {
                throw PinSetError(
                    .backupRuleViolated,
                    "backup rule: an enforcing set needs at least one pin with role \"backup\", so that a lost key does not lock every client out"
                )
            }
        }
    }
}
