import MicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The handler every test server uses; each path exercises one part of the wrapper.
struct TestHandler: HTTPHandler {
    static let helloBody = Array("hello, world\n".utf8)
    let hello = PreparedResponse(
        status: 200, headers: [("Content-Type", "text/plain"), ("ETag", "\"abc\"")], body: TestHandler.helloBody)
    let notModified = PreparedResponse(status: 304, headers: [("ETag", "\"abc\"")], body: [])

    /// The wrapper's own 413 and 500 come from the application, as problem+json (pinset's router writes the same).
    func payloadTooLargeResponse(limit: Int) -> PreparedResponse {
        problem(slug: "payload-too-large", status: 413, detail: "The request body is larger than \(limit) bytes.")
    }

    func internalErrorResponse() -> PreparedResponse {
        problem(slug: "internal", status: 500, detail: "The server could not build its answer.")
    }

    private func problem(slug: String, status: Int, detail: String) -> PreparedResponse {
        PreparedResponse(
            status: status, headers: [("Content-Type", "application/problem+json")],
            body: Array(#"{"type":"urn:pinset:problem:\#(slug)","status":\#(status),"detail":"\#(detail)"}"#.utf8))
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let etag: StaticString = "\"abc\""
        let isPath = { (p: StaticString) in
            request.withPathBytes {
                $0.elementsEqual(UnsafeRawBufferPointer(start: p.utf8Start, count: p.utf8CodeUnitCount))
            }
        }
        if isPath("/hello") {
            let matches = request.headerEquals(
                "If-None-Match", UnsafeRawBufferPointer(start: etag.utf8Start, count: etag.utf8CodeUnitCount))
            return .prepared(matches ? notModified : hello)
        }
        switch request.path {
        case "/echo":
            return .dynamic(
                status: 200, headers: [("X-Body-Length", String(request.body.count))], body: request.body)
        case "/info":
            let fields = [
                "method=\(request.method)",
                "path=\(request.path)",
                "x-test=\(request.header("x-TEST") ?? "nil")",
                "q=\(request.query("q") ?? "nil")",
                "flag=\(request.query("flag") ?? "nil")",
                "missing=\(request.query("missing") ?? "nil")",
                "remote=\(request.remoteAddress ?? "nil")",
            ]
            return .dynamic(
                status: 200, headers: [("Content-Type", "text/plain")], body: Array(fields.joined(separator: "\n").utf8)
            )
        case "/slow":
            usleep(800_000)
            return .dynamic(status: 200, headers: [], body: Array("done".utf8))
        case "/bad-header":
            return .dynamic(status: 200, headers: [("X-Bad", "a\r\nInjected: yes")], body: [])
        default:
            return .dynamic(status: 404, headers: [], body: Array("not found".utf8))
        }
    }
}

/// Starts a server on 127.0.0.1 with an ephemeral port and the test handler.
func startServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration(port: 0, threads: 2)
    configure(&configuration)
    return try HTTPServer(configuration: configuration, handler: TestHandler())
}

func get(_ path: String, extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(extra)\r\n"
}
