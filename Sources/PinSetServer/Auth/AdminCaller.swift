import PinSetAdminAPI
/// The token behind an admin request: its name (recorded in history and the log) and its scope.
package struct AdminCaller: Sendable, Hashable {
    /// The token's name.
    package let name: String
    /// What it may do.
    package let scope: TokenScope

    /// Creates a caller.
    package init(name: String, scope: TokenScope) {
        self.name = name
        self.scope = scope
    }
}
