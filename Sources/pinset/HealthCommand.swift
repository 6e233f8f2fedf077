import ArgumentParser
import Foundation
import PinSetAdminAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `pinset health`: exit 0 when a server's `/healthz` (with `--ready`, `/readyz`) answers 200, 1 otherwise. The
/// container's HEALTHCHECK and Kubernetes' exec probes run it, so the runtime image needs no curl.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 when the server's /healthz answers 200 (for HEALTHCHECK and probes), 1 otherwise.",
        discussion: """
            The server defaults to http://127.0.0.1:$PINSET_PORT (8080 when unset), the address a container's \
            HEALTHCHECK reaches. Needs no token. With --ready it asks /readyz instead: 200 only when the server \
            should receive traffic (documents loaded, the signing key answers, the log caught up, not draining); \
            otherwise it prints the conditions that do not hold.
            """)
    @Option(help: "Server base URL. Default http://127.0.0.1:$PINSET_PORT (8080).")
    var server: String?
    @Option(help: "Seconds to wait for the answer. Default 3.")
    var timeout: Double = 3
    @Flag(help: "Ask /readyz (ready for traffic) instead of /healthz (alive).")
    var ready = false

    func run() async throws {
        let port = (try? Environment.port(nil)) ?? 8080
        let base = server ?? "http://127.0.0.1:\(port)"
        guard timeout > 0, timeout <= 300 else { throw CLIError("timeout must be between 0 and 300 seconds") }
        let path = ready ? "readyz" : "healthz"
        guard let url = URL(string: base.hasSuffix("/") ? base + path : base + "/" + path),
            url.scheme == "http" || url.scheme == "https"
        else { throw CLIError("\(base) is not an http(s) URL") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "GET"
        let (word, failed) = ready ? ("ready", "not ready") : ("healthy", "unhealthy")
        let (body, answered) = try await CLIHTTP.send(
            request, unreachable: "\(failed): cannot reach \(url.absoluteString)")
        let status = answered ?? 0
        guard status == 200 else {
            // The problem's detail names what is not ready (it never holds a secret); at most one line of it.
            let detail = (try? AdminJSON.decoder.decode(ProblemDetails.self, from: body)).map {
                ": " + $0.detail.prefix(500).split(separator: "\n").joined(separator: " ")
            }
            throw CLIError("\(failed): \(url.absoluteString) answered \(status)\(detail ?? "")")
        }
        print("\(word): \(url.absoluteString) answered 200")
    }
}
