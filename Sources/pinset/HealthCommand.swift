import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `pinset health`: exit 0 when a server's `/healthz` answers 200, 1 otherwise. The container's HEALTHCHECK runs
/// it, so the runtime image needs no curl.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 when the server's /healthz answers 200 (for HEALTHCHECK and probes), 1 otherwise.",
        discussion: """
            The server defaults to http://127.0.0.1:$PINSET_PORT (8080 when unset), the address a container's \
            HEALTHCHECK reaches. Needs no token.
            """)
    @Option(help: "Server base URL. Default http://127.0.0.1:$PINSET_PORT (8080).")
    var server: String?
    @Option(help: "Seconds to wait for the answer. Default 3.")
    var timeout: Double = 3

    func run() async throws {
        let port = (try? Environment.port(nil)) ?? 8080
        let base = server ?? "http://127.0.0.1:\(port)"
        guard timeout > 0, timeout <= 300 else { throw CLIError("timeout must be between 0 and 300 seconds") }
        guard let url = URL(string: base.hasSuffix("/") ? base + "healthz" : base + "/healthz"),
            url.scheme == "http" || url.scheme == "https"
        else { throw CLIError("\(base) is not an http(s) URL") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "GET"
        let response: URLResponse
        do {
            (_, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CLIError("unhealthy: cannot reach \(url.absoluteString): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw CLIError("unhealthy: \(url.absoluteString) answered \(status)") }
        print("healthy: \(url.absoluteString) answered 200")
    }
}
