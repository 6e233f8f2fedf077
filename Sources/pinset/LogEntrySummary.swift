import Foundation
import PinSetCore

/// What a monitor reports of one log entry (PROTOCOL §7.5): a pin document's host, version, signing key and
/// issue time, or a trust document's version, root keys and issue time. The entry is read, not verified: a
/// monitor reports every document published, whoever signed it.
struct LogEntrySummary: Equatable {
    /// What the entry is.
    enum Kind: String {
        /// A pin document (PROTOCOL §2).
        case pins
        /// A trust document (PROTOCOL §6.1).
        case trust
        /// Neither: bytes this monitor cannot read (always reported).
        case unreadable
    }

    let index: Int
    let kind: Kind
    /// The pin document's host; empty for the others.
    let host: String
    /// The document's version; 0 when unreadable.
    let version: Int
    /// The signing key's kid (pins), or the root keys' kids joined by commas (trust).
    let kid: String
    /// RFC 3339, or empty.
    let issuedAt: String

    /// Reads entry `index`.
    init(index: Int, entry: [UInt8]) {
        self.index = index
        if let document = try? SignedDocument.decode(json: entry),
            let payload = Base64URL.decode(document.payload), let set = try? PinSet.decode(json: payload)
        {
            kind = .pins
            host = set.host
            version = set.version
            kid = Self.kid(of: document.protected)
            issuedAt = RFC3339.format(set.issuedAt)
        } else if let document = try? TrustDocument.decode(json: entry),
            let payload = Base64URL.decode(document.payload),
            let trust = try? JSONDecoder().decode(TrustPayload.self, from: Data(payload))
        {
            kind = .trust
            host = ""
            version = trust.version
            kid = document.signatures.map { Self.kid(of: $0.protected) }.joined(separator: ",")
            issuedAt = RFC3339.format(trust.issuedAt)
        } else {
            kind = .unreadable
            host = ""
            version = 0
            kid = ""
            issuedAt = ""
        }
    }

    private static func kid(of protected: String) -> String {
        guard let header = Base64URL.decode(protected),
            let decoded = try? JSONDecoder().decode(JWSHeader.self, from: Data(header))
        else { return "?" }
        return decoded.kid ?? "?"
    }

    /// The line printed on standard output: index, host (`(trust)` or `(unreadable)` for the others), version,
    /// kid and issuedAt, separated by spaces.
    var line: String {
        let name = kind == .pins ? host : "(\(kind.rawValue))"
        return "\(index) \(name) \(version) \(kid.isEmpty ? "-" : kid) \(issuedAt.isEmpty ? "-" : issuedAt)"
    }
}

/// The host patterns of `pinset log watch --hosts`: `api.example.com`, `*.example.com` (any name below it, not
/// itself), or `*` (every host); case-insensitive.
struct HostPatterns {
    let patterns: [String]

    /// Parses comma-separated lists (the option may repeat).
    init(_ lists: [String]) throws {
        patterns = lists.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
        guard !patterns.isEmpty else { throw CLIError("--hosts needs at least one pattern") }
        for pattern in patterns where pattern != "*" {
            let name = pattern.hasPrefix("*.") ? String(pattern.dropFirst(2)) : pattern
            guard !name.contains("*"), (try? HostName.normalize(name)) == name else {
                throw CLIError("--hosts: \"\(pattern)\" is not a host name, *.name or *")
            }
        }
    }

    /// Whether `host` matches a pattern.
    func matches(_ host: String) -> Bool {
        let host = host.lowercased()
        return patterns.contains { pattern in
            if pattern == "*" { return true }
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst(1)) }
            return host == pattern
        }
    }
}
