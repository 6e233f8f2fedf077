import Foundation

/// What a pin's hash covers (PROTOCOL §1).
public enum PinType: String, Codable, Sendable, Hashable, CaseIterable {
    /// SHA-256 of the DER SubjectPublicKeyInfo, algorithm identifier included (HPKP `pin-sha256`). The default.
    case spki
    /// SHA-256 of the whole DER certificate.
    case certificate
}

/// Why a pin is in a set (PROTOCOL §1). Informational for clients; the server uses it for its safety rules.
public enum PinRole: String, Codable, Sendable, Hashable, CaseIterable {
    /// The key the host serves now.
    case current
    /// A key held in reserve, not yet deployed.
    case backup
    /// The key of a planned rotation.
    case future
}

/// One pin: a base64 SHA-256 hash of a public key or certificate, with its policy fields (PROTOCOL §1).
public struct Pin: Codable, JSONMembers, Sendable, Hashable {
    /// Standard padded base64 of exactly 32 bytes.
    public var sha256: String
    /// What the hash covers; defaults to ``PinType/spki``.
    public var type: PinType
    /// Why the pin is in the set; defaults to ``PinRole/current``.
    public var role: PinRole
    /// After this instant the pin no longer matches.
    public var expiresAt: Date?
    /// Free text for administrators, at most ``Pin/maxCommentLength`` bytes of UTF-8 (when written to the server).
    public var comment: String?

    /// The longest comment the protocol allows: 200 characters on the wire, counted by the server as UTF-8
    /// bytes when a set is written (a grapheme cluster can hold any number of bytes).
    public static let maxCommentLength = 200

    /// Creates a pin. No validation happens here; see ``Pin/validate()``.
    public init(
        sha256: String, type: PinType = .spki, role: PinRole = .current, expiresAt: Date? = nil, comment: String? = nil
    ) {
        self.sha256 = sha256
        self.type = type
        self.role = role
        self.expiresAt = expiresAt
        self.comment = comment
    }

    /// The 32 hash bytes, or `nil` if `sha256` is not standard base64 of exactly 32 bytes.
    public var hashBytes: [UInt8]? {
        guard let bytes = Base64.decode(sha256), bytes.count == 32 else { return nil }
        return bytes
    }

    /// Checks the field rules of PROTOCOL §1 that do not depend on the time.
    public func validate() throws(PinSetError) {
        guard hashBytes != nil else {
            throw PinSetError(
                .invalidPin,
                "pin \"\(sha256.prefix(60))\": sha256 must be standard base64 (with padding) of exactly 32 bytes")
        }
        if let comment, comment.count > Self.maxCommentLength {
            throw PinSetError(.invalidPin, "pin \(sha256): comment is longer than \(Self.maxCommentLength) characters")
        }
    }

    /// The write-time rules: ``validate()``, and a comment of at most ``maxCommentLength`` UTF-8 bytes (issue 40:
    /// 200 characters of `a` and 150 combining marks each made an 80 KB document that every client refuses).
    public func validateForWriting() throws(PinSetError) {
        try validate()
        if let comment, comment.utf8.count > Self.maxCommentLength {
            throw PinSetError(
                .invalidPin,
                "pin \(sha256): comment is \(comment.utf8.count) bytes of UTF-8; at most \(Self.maxCommentLength) are allowed"
            )
        }
    }

    /// Whether the pin still matches at `now`.
    public func isActive(at now: Date) -> Bool {
        guard let expiresAt else { return true }
        return now < expiresAt
    }

    private enum CodingKeys: String, CodingKey { case sha256, type, role, expiresAt, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Plain strings, not nested Decodable types: every nested type costs JSONDecoder a decoder, a container
        // and generic metadata look-ups, and pins were most of a document verification's decoding time (B8).
        // The errors are the ones the nested types threw.
        sha256 = try container.decode(String.self, forKey: .sha256)
        type = try container.decodeRawValueIfPresent(PinType.self, forKey: .type) ?? .spki
        role = try container.decodeRawValueIfPresent(PinRole.self, forKey: .role) ?? .current
        expiresAt = try container.decodeRFC3339IfPresent(forKey: .expiresAt)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }

    /// Encodes the members of ``writeMembers(to:)``.
    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }

    /// The pin's members, in sorted order: the one list both its `Encodable` and ``JSONWriter`` write.
    public func writeMembers<Sink: JSONMemberSink>(to sink: inout Sink) throws(Sink.Failure) {
        if let comment { try sink.member("comment", comment) }
        if let expiresAt { try sink.member("expiresAt", expiresAt) }
        try sink.member("role", role.rawValue)
        try sink.member("sha256", sha256)
        try sink.member("type", type.rawValue)
    }
}

/// A date that codes as an RFC 3339 string whatever the coder's date strategy is.
public struct RFC3339Date: Codable, Sendable, Hashable {
    /// The instant.
    public var date: Date

    /// Wraps `date`.
    public init(_ date: Date) { self.date = date }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: Self.notRFC3339(text)))
        }
        self.date = date
    }

    static func notRFC3339(_ text: String) -> String { "\"\(text.prefix(40))\" is not an RFC 3339 time" }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(RFC3339.format(date))
    }
}

extension KeyedDecodingContainer {
    /// `decode(RFC3339Date.self, forKey: key).date` without the nested decoder, with the same errors.
    func decodeRFC3339(forKey key: Key) throws -> Date {
        try rfc3339(decode(String.self, forKey: key), forKey: key)
    }

    /// `decodeIfPresent(RFC3339Date.self, forKey: key)?.date` without the nested decoder, with the same errors.
    func decodeRFC3339IfPresent(forKey key: Key) throws -> Date? {
        try decodeIfPresent(String.self, forKey: key).map { try rfc3339($0, forKey: key) }
    }

    private func rfc3339(_ text: String, forKey key: Key) throws -> Date {
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: RFC3339Date.notRFC3339(text))
        }
        return date
    }

    /// `decodeIfPresent(T.self, forKey: key)` for a string enum without the nested decoder, with the error of the
    /// standard library's `RawRepresentable` decoding.
    func decodeRawValueIfPresent<T: RawRepresentable>(_ type: T.Type, forKey key: Key) throws -> T?
    where T.RawValue == String {
        guard let raw = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "Cannot initialize \(T.self) from invalid String value \(raw)")
        }
        return value
    }
}
