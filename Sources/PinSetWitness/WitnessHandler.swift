import MicroHTTPD

/// The witness's HTTP routes: `POST /add-checkpoint`, `GET /<origin hash>/checkpoint` and
/// `GET /<origin hash>/conflicts`; anything else is 404.
package struct WitnessHandler: HTTPHandler {
    private let witness: Witness

    /// Serves `witness`.
    package init(witness: Witness) {
        self.witness = witness
    }

    package func handle(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.path
        let answer: Witness.Answer
        if path == "/add-checkpoint" {
            guard request.method == .post else { return Self.plain(405, "use POST", allow: "POST") }
            answer = witness.addCheckpoint(request.body)
        } else if path.hasSuffix("/checkpoint"), path.split(separator: "/").count == 2 {
            guard request.method == .get || request.method == .head else {
                return Self.plain(405, "use GET", allow: "GET, HEAD")
            }
            answer = witness.checkpoint(originHash: String(path.split(separator: "/")[0]))
        } else if path.hasSuffix("/conflicts"), path.split(separator: "/").count == 2 {
            guard request.method == .get || request.method == .head else {
                return Self.plain(405, "use GET", allow: "GET, HEAD")
            }
            answer = witness.conflicts(originHash: String(path.split(separator: "/")[0]))
        } else {
            return Self.plain(404, "not found")
        }
        return .dynamic(
            status: answer.status, headers: [("Content-Type", answer.contentType), ("Cache-Control", "no-store")],
            body: answer.body)
    }

    package func payloadTooLargeResponse(limit: Int) -> PreparedResponse {
        PreparedResponse(
            status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
            body: Array("a request body is at most \(limit) bytes\n".utf8))
    }

    package func internalErrorResponse() -> PreparedResponse {
        PreparedResponse(
            status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array("internal error\n".utf8))
    }

    private static func plain(_ status: Int, _ message: String, allow: String? = nil) -> HTTPResponse {
        .dynamic(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8")] + (allow.map { [("Allow", $0)] } ?? []),
            body: Array((message + "\n").utf8))
    }
}
