/// What one admin token may do: a role and the hosts it covers. Tokens made before scopes have ``full``.
public struct TokenScope: Sendable, Hashable {
    /// The token's role.
    public var role: TokenRole
    /// The hosts it may act on; `nil` means every host.
    public var hosts: [HostPattern]?

    /// Creates a scope. Defaults: `admin`, every host.
    public init(role: TokenRole = .admin, hosts: [HostPattern]? = nil) {
        self.role = role
        self.hosts = hosts
    }

    /// Every right: the scope of a token made without `--role` or `--hosts`, and of every token made before them.
    public static let full = TokenScope()

    /// Whether the scope covers `host` (normalised).
    public func covers(host: String) -> Bool {
        guard let hosts else { return true }
        return hosts.contains { $0.matches(host) }
    }

    /// Whether the scope covers every name strictly below `host` (normalised): every host, or a pattern
    /// `*.host` or `*.` a suffix of it. A set with `includeSubdomains` governs those names.
    package func covers(subdomainsOf host: String) -> Bool {
        guard let hosts else { return true }
        return hosts.contains { $0.isWildcard && ($0.base == host || $0.matches(host)) }
    }

    /// The right of `required` this scope lacks, or `nil` when it has them all. The role is checked first.
    public func missing(_ required: AdminRight) -> AdminRight.Missing? {
        if role < required.role { return .role(required.role) }
        if let host = required.host, !covers(host: host) { return .host(host) }
        return nil
    }

    /// The hosts, as stored and shown: patterns separated by spaces, or `*` for every host.
    public var hostsDescription: String { hosts.map { $0.map(\.description).joined(separator: " ") } ?? "*" }
}
