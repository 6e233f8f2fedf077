/// What an admin token may do, each role including the ones below it: a `reader` reads pin sets, their history
/// and reports; a `writer` also changes pin sets; an `admin` also manages what is not a host's pin set (trust
/// documents, tokens, future server-wide resources).
public enum TokenRole: String, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// Reads pin sets, history and reports of its hosts.
    case reader
    /// Also writes pin sets of its hosts (PUT, POST pins, DELETE).
    case writer
    /// Everything, including server-wide resources. The default, and the role of every token made before roles.
    case admin

    private var rank: Int {
        switch self {
        case .reader: 0
        case .writer: 1
        case .admin: 2
        }
    }

    public static func < (lhs: TokenRole, rhs: TokenRole) -> Bool { lhs.rank < rhs.rank }
}
