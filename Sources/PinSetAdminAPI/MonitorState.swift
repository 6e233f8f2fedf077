/// The monitor's verdict on a host, as `GET /admin/hosts` and `GET /admin/hosts/{host}/status` say it.
public enum MonitorState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Every address serves a chain the set matches, and nothing expires soon.
    case ok
    /// A warning other than a lock-out: unreachable, or a certificate or the only matching pin expires soon.
    case warning
    /// An address serves a key the set does not pin: a lock-out in progress.
    case failing
    /// Not probed yet (or not monitored: report-only and retired sets).
    case unknown
}
