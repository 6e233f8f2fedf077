import ArgumentParser
import Foundation
import PinSetAdminAPI
import PinSetCore

/// `pinset reports [HOST]`: pin failure reports, grouped by host and served leaf key.
struct ReportsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "Show pin failure reports, grouped by host and by the served chain's leaf pin.",
        discussion:
            "MATCHES-CURRENT is yes when the reported chain matches a pin in force now: the client held an older set.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "Only reports about this host.") var host: String?
    @Option(help: "Only groups seen since this RFC 3339 time, e.g. 2026-11-01T00:00:00Z.") var since: String?

    func run() async throws {
        var query: [String] = []
        if let host { query.append("host=\(host.pathSegment)") }
        if let since {
            guard RFC3339.parse(since) != nil else { throw CLIError("--since \"\(since)\" is not an RFC 3339 time") }
            query.append(
                "since=\(since.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-", ":", "."])) ?? since)"
            )
        }
        let path = "/admin/reports" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let data = try await options.client().send("GET", path)
        if options.printJSON(data) { return }
        struct Groups: Decodable {
            var groups: [ReportGroup]
            var logForks: [LogForkReportEntry]?
        }
        let answer = try AdminOutput.decode(Groups.self, data)
        let groups = answer.groups
        print("HOST\tLEAF-PIN\tCOUNT\tFIRST-SEEN\tLAST-SEEN\tMATCHES-CURRENT")
        for group in groups {
            print(
                "\(group.host)\t\(group.leafPin)\t\(group.count)\t\(RFC3339.format(group.firstSeen))\t\(RFC3339.format(group.lastSeen))\t\(group.matchesCurrentPin ? "yes" : "no")"
            )
        }
        guard let forks = answer.logForks, !forks.isEmpty else { return }
        // A fork is evidence of a split view by whoever holds the log key: never folded into the table above.
        print("\nTRANSPARENCY LOG FORKS REPORTED BY CLIENTS (PROTOCOL §7.4; --json for both signed checkpoints)")
        print("LOG-ORIGIN\tDOCUMENT\tCOUNT\tFIRST-SEEN\tLAST-SEEN")
        for fork in forks {
            print(
                "\(fork.logOrigin)\t\(fork.document)\t\(fork.count)\t\(RFC3339.format(fork.firstSeen))\t\(RFC3339.format(fork.lastSeen))"
            )
        }
    }
}
