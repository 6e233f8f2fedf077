import PinSetAdminAPI
/// The token behind an admin request: its name (recorded in history and the log) and its scope.
public struct AdminCaller: Sendable, Hashable {
    /// The token's name.
    public let name: String
    /// What it may do.
    public let scope: TokenScope

    /// Creates a caller.
    public init(name: String, scope: TokenScope) {
        self.name = name
        self.scope = scope
    }
}
