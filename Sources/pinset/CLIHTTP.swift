import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange of a CLI command, with the failure every command words the same way.
enum CLIHTTP {
    /// Sends `request` through `transport` (default `URLSession.shared`) and returns the answer's body and HTTP
    /// status (`nil` when the answer is not HTTP). A transport failure is a ``CLIError``: `unreachable`, a colon and
    /// the reason.
    static func send(
        _ request: URLRequest, unreachable: String,
        via transport: (URLRequest) async throws -> (Data, URLResponse) = { try await URLSession.shared.data(for: $0) }
    ) async throws -> (body: Data, status: Int?) {
        do {
            let (body, response) = try await transport(request)
            return (body, (response as? HTTPURLResponse)?.statusCode)
        } catch {
            throw CLIError("\(unreachable): \(error.localizedDescription)")
        }
    }
}
