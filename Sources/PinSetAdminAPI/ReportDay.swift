/// How many reports one host got on one UTC day, as `GET /admin/reports` lists them in `days`.
public struct ReportDay: Codable, Sendable, Hashable {
    /// The pinned host the reports were about (`noted-hostname`, else `hostname`), as in ``ReportGroup/host``.
    public var host: String
    /// The UTC day, `YYYY-MM-DD`.
    public var day: String
    /// How many reports arrived that day, duplicates included.
    public var count: Int

    /// Creates a day count.
    public init(host: String, day: String, count: Int) {
        self.host = host
        self.day = day
        self.count = count
    }
}
