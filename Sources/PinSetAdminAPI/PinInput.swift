import Foundation
import PinSetCore

/// A pin as a write request gives it (PROTOCOL §4): the fields of ``Pin``, but either `sha256` or
/// `certificate` (PEM or base64 DER), from which the server derives the hash itself.
///
/// Unknown JSON members are refused (400), so that a typo such as `"expires"` is not silently dropped.
public struct PinInput: Codable, Sendable, Hashable {
    /// Standard padded base64 of the 32-byte hash; give this or ``certificate``.
    public var sha256: String?
    /// A certificate in PEM or base64 DER; the pin is derived from it according to ``type``.
    public var certificate: String?
    /// What the hash covers; default ``PinType/spki``.
    public var type: PinType?
    /// Why the pin is in the set; default ``PinRole/current``.
    public var role: PinRole?
    /// After this instant the pin no longer matches (RFC 3339 in JSON).
    public var expiresAt: Date?
    /// Free text for administrators, at most 200 characters.
    public var comment: String?
    /// `"leaf"`: instead of ``sha256`` or ``certificate``, pin the key (or, with type `certificate`, the
    /// certificate) of the leaf the host serves now, found by the same probe as the pre-flight check.
    public var capture: String?

    /// Creates a pin input.
    public init(
        sha256: String? = nil, certificate: String? = nil, type: PinType? = nil, role: PinRole? = nil,
        expiresAt: Date? = nil, comment: String? = nil
    ) {
        self.sha256 = sha256
        self.certificate = certificate
        self.type = type
        self.role = role
        self.expiresAt = expiresAt
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case sha256, certificate, type, role, expiresAt, comment, capture
    }

    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self, in: "a pin")
        sha256 = try container.decodeIfPresent(String.self, forKey: .sha256)
        certificate = try container.decodeIfPresent(String.self, forKey: .certificate)
        type = try container.decodeIfPresent(PinType.self, forKey: .type)
        role = try container.decodeIfPresent(PinRole.self, forKey: .role)
        expiresAt = try container.decodeIfPresent(RFC3339Date.self, forKey: .expiresAt)?.date
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        capture = try container.decodeIfPresent(String.self, forKey: .capture)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(sha256, forKey: .sha256)
        try container.encodeIfPresent(certificate, forKey: .certificate)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(expiresAt.map(RFC3339Date.init), forKey: .expiresAt)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(capture, forKey: .capture)
    }
}
