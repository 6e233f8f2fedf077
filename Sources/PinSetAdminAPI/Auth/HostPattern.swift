import PinSetCore

/// A host a scoped token may act on: `api.example.com` names that one host; `*.example.com` names every name
/// strictly below `example.com` (`a.example.com`, `a.b.example.com`), never `example.com` itself.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// The normalised host (exact) or the suffix after `*.` (wildcard).
    public let base: String
    /// Whether this is a `*.` pattern.
    public let isWildcard: Bool

    /// Parses a pattern; the host part is normalised like every host (lowercase, no trailing dot).
    /// - Throws: ``HostName/Error`` for a malformed host, or a `*` anywhere but a leading `*.` label.
    public init(_ text: String) throws(HostName.Error) {
        if text.hasPrefix("*.") {
            base = try HostName.normalize(text.dropFirst(2))
            isWildcard = true
        } else {
            base = try HostName.normalize(text)
            isWildcard = false
        }
    }

    /// Whether `host` (already normalised) is covered by this pattern.
    public func matches(_ host: String) -> Bool {
        guard isWildcard else { return host == base }
        return host.utf8.count > base.utf8.count + 1 && host.hasSuffix(base)
            && host.utf8.dropLast(base.utf8.count).last == UInt8(ascii: ".")
    }

    /// The pattern as written back: `api.example.com` or `*.example.com`.
    public var description: String { isWildcard ? "*." + base : base }
}
