import ArgumentParser
import Foundation
import PinSetAdminAPI
import PinSetCore

/// `pinset status [HOST]`: the monitor's view of one host or of every host.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the monitor's last probe of every host (or of HOST): state, warnings, served pins.",
        discussion: """
            States: ok, warning (unreachable, a certificate or the only matching pin expires soon), failing \
            (a host serves a key its set does not pin: clients are being locked out), unknown (not probed yet, \
            or a report-only or retired set). --json prints the server's JSON (an array without HOST).
            """)
    @OptionGroup var options: ServerOptions
    @Argument(help: "One host; all hosts when omitted.") var host: String?

    func run() async throws {
        let client = try options.client()
        var statuses: [HostStatus] = []
        var raw: [Data] = []
        let hosts: [String]
        if let host {
            hosts = [host]
        } else {
            struct Hosts: Decodable { var hosts: [HostSummary] }
            hosts = try AdminOutput.decode(Hosts.self, try await client.send("GET", "/admin/hosts")).hosts.map {
                $0.host
            }
        }
        for name in hosts {
            let data = try await client.send("GET", "/admin/hosts/\(name.pathSegment)/status")
            raw.append(data)
            statuses.append(try AdminOutput.decode(HostStatus.self, data))
        }
        if options.json {
            let texts = raw.map { String(decoding: $0, as: UTF8.self) }
            print(host != nil ? texts[0] : "[" + texts.joined(separator: ",") + "]")
            return
        }
        await Self.printOpenForks(client)
        if host == nil, let line = try? await Self.newestIssuedLine(client) { print(line) }
        print("HOST\tSTATE\tCHECKED\tCERT EXPIRES\tWARNINGS")
        for status in statuses {
            let checked = status.checkedAt.map(RFC3339.format) ?? "-"
            let expires = status.leafNotAfter.map(RFC3339.format) ?? "-"
            let warnings = status.warnings.isEmpty ? "-" : status.warnings.map { $0.rawValue }.joined(separator: ",")
            print("\(status.host)\t\(status.state.rawValue)\t\(checked)\t\(expires)\t\(warnings)")
        }
        if let status = statuses.first, host != nil {
            for address in status.addresses {
                let verdict =
                    address.error.map { "error: \($0)" } ?? (address.matches == true ? "matches" : "NOT PINNED")
                print("  \(address.address)  \(verdict)")
                for certificate in address.served {
                    print(
                        "    \(certificate.spki)  \(certificate.position == 0 ? "leaf" : "chain")  \(certificate.subject)"
                    )
                }
            }
        }
    }

    /// Prints the log's open forks (PROTOCOL §7.2) above the hosts, when the server keeps a log and the token may
    /// read `GET /admin/log` (an `admin` token); prints nothing otherwise.
    static func printOpenForks(_ client: AdminClient) async {
        struct Fork: Decodable {
            var id: Int
            var source: String
            var detectedAt: String
            var foreignCheckpoint: String
            var acknowledgedAt: String?
        }
        struct Log: Decodable {
            var openForks: Int?
            var forks: [Fork]?
        }
        guard let data = try? await client.send("GET", "/admin/log"),
            let log = try? JSONDecoder().decode(Log.self, from: data), let open = log.openForks, open > 0
        else { return }
        print("LOG FORK: \(open) open fork(s) of the transparency log: its key signed checkpoints this server did not")
        for fork in (log.forks ?? []) where fork.acknowledgedAt == nil {
            let head = fork.foreignCheckpoint.split(separator: "\n").prefix(3).joined(separator: " ")
            print("  fork \(fork.id)  \(fork.detectedAt)  \(fork.source)  \(head)")
        }
        print("  see GET /admin/log; acknowledge with POST /admin/log/forks/{id}/acknowledge (docs: README)")
    }

    /// "newest document issued ...", from the server's `/metrics` (`pinset_documents_newest_issued_at_seconds`), with
    /// how far it is from this machine's clock: a clock that jumped shows here.
    static func newestIssuedLine(_ client: AdminClient) async throws -> String? {
        let text = String(decoding: try await client.send("GET", "/metrics"), as: UTF8.self)
        let name = "pinset_documents_newest_issued_at_seconds "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
            let seconds = Double(line.dropFirst(name.count))
        else { return nil }
        let issued = Date(timeIntervalSince1970: seconds)
        let ahead = Int(issued.timeIntervalSinceNow)
        let note = ahead > 300 ? " (\(ahead) s AHEAD of this clock: signed while the server's clock was ahead)" : ""
        return "newest document issued at \(RFC3339.format(issued))\(note)"
    }
}
