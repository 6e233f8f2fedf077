import ArgumentParser
import Foundation
import PinSetAdminAPI
import PinSetCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A tiny HTTP client for the admin API (PROTOCOL §4, openapi.yaml), used by the admin subcommands.
struct AdminClient {
    let server: URL
    let token: String?

    /// Sends a request and returns the body of a 2xx answer; otherwise throws the server's problem `detail`.
    func send(_ method: String, _ path: String, body: Data? = nil, ifMatch: String? = nil) async throws -> Data {
        guard let token else {
            throw CLIError(
                "no admin token: set PINSET_TOKEN or pass --token-file FILE (tokens are never taken as a plain flag)")
        }
        guard let url = URL(string: server.absoluteString.trimmingSuffix("/") + path) else {
            throw CLIError("cannot build a URL from \(server) and \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        let (data, answered) = try await CLIHTTP.send(
            request, unreachable: "cannot reach \(server)", via: AdminTransport.shared.data(for:))
        guard let status = answered else { throw CLIError("\(server) did not answer HTTP") }
        guard (200..<300).contains(status) else {
            let problem = try? AdminJSON.decoder.decode(ProblemDetails.self, from: data)
            let served = problem.map { $0.detail.isEmpty ? $0.title : $0.detail } ?? "no detail"
            // The API tells its callers to send "force": true; a CLI user overrides with the --force flag.
            let detail = served.replacingOccurrences(of: "send \"force\": true", with: "pass --force")
            let rule = problem?.rule.map { " [rule \($0)]" } ?? ""
            throw CLIError("server answered \(status): \(detail)\(rule)")
        }
        return data
    }
}

/// Options shared by every subcommand that talks to a running server's admin API.
struct ServerOptions: ParsableArguments {
    @Option(help: "Server base URL. Env PINSET_SERVER. Default http://127.0.0.1:8080.")
    var server: String?
    @Option(help: "File holding the admin token (first line). Otherwise env PINSET_TOKEN.")
    var tokenFile: String?
    @Flag(help: "Print the server's JSON instead of a table.")
    var json = false

    func client() throws -> AdminClient {
        let base = Environment.server(server)
        guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https" else {
            throw CLIError("--server \"\(base)\" is not an http(s) URL")
        }
        var token: String?
        if let tokenFile {
            guard let data = FileManager.default.contents(atPath: tokenFile) else {
                throw CLIError("cannot read the token file \(tokenFile)")
            }
            token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces)
            if token?.isEmpty ?? true { throw CLIError("the token file \(tokenFile) is empty") }
        } else if let env = Environment.token {
            token = env
        }
        return AdminClient(server: url, token: token)
    }

    /// Prints `data` as is when `--json` was given; returns whether it did.
    func printJSON(_ data: Data) -> Bool {
        guard json else { return false }
        print(String(decoding: data, as: UTF8.self))
        return true
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }

    /// The host as a URL path segment.
    var pathSegment: String {
        addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-", ".", "_"])) ?? self
    }
}
