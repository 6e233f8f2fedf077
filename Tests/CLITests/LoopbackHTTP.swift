import Foundation
import TestSupport

/// The admin API of a `pinset serve` subprocess through the one test HTTP client (``TestHTTPClient``): a bearer
/// token and a JSON body, the body of the answer as text.
struct LoopbackHTTP {
    struct Response {
        var status: Int
        var body: String
    }

    let client: TestHTTPClient

    /// The client for a server URL such as `http://127.0.0.1:8080`.
    init(url: String) {
        client = TestHTTPClient(url: url)
    }

    func request(_ method: String, _ path: String, token: String? = nil, body: String? = nil) throws -> Response {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if body != nil { headers["Content-Type"] = "application/json" }
        let answer = try client.request(method, path, headers: headers, body: body.map { Array($0.utf8) })
        return Response(status: answer.status, body: answer.text)
    }
}
