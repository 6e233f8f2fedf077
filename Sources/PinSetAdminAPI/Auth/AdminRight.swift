/// The right an admin request needs: a least role and, for a host's resources, that host.
///
/// Every route declares its right next to its handler in ``RouteTable/all`` (``Route/Access``; a route without
/// one does not compile); the router checks it before the handler runs and answers `403` with the missing right.
public struct AdminRight: Sendable, Hashable {
    /// The least role.
    public let role: TokenRole
    /// The normalised host the request acts on, if any.
    public let host: String?

    /// A right: `role` at least, on `host` when given.
    public static func requires(_ role: TokenRole, host: String? = nil) -> AdminRight {
        AdminRight(role: role, host: host)
    }

    /// Server-wide resources (trust documents, tokens): the admin role, every host.
    public static let admin = AdminRight(role: .admin, host: nil)

    /// What a scope lacks.
    public enum Missing: Sendable, Hashable {
        /// A role at least this one.
        case role(TokenRole)
        /// The host is outside the token's hosts.
        case host(String)
    }
}
