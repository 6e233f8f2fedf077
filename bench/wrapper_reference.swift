// bench/wrapper_reference.swift: the smallest server over the MicroHTTPD wrapper (calibration row B0w).
// Serves one file for every request like baseline.c (304 on a matching If-None-Match), so the C-vs-Swift
// ratio isolates the wrapper's cost from pinset's own routing and caching.
// usage: wrapper_reference PORT BODY_FILE ETAG
// build (run.sh does it, as main.swift): swiftc -O -module-name WrapperReference Sources/MicroHTTPD/*.swift \
//        main.swift -I Sources/CMicroHTTPD -lmicrohttpd -o wrapper_reference
#if canImport(Glibc)
    import Glibc
#endif

struct StaticHandler: HTTPHandler {
    let ok: PreparedResponse
    let notModified: PreparedResponse
    let etag: [UInt8]

    func payloadTooLargeResponse(limit: Int) -> PreparedResponse {
        PreparedResponse(status: 413, headers: [], body: [])
    }

    func internalErrorResponse() -> PreparedResponse { PreparedResponse(status: 500, headers: [], body: []) }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let matches = etag.withUnsafeBytes { request.headerEquals("If-None-Match", $0) }
        return .prepared(matches ? notModified : ok)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = UInt16(arguments[1]), let file = fopen(arguments[2], "rb") else {
    fputs("usage: wrapper_reference PORT BODY_FILE ETAG\n", stderr)
    exit(2)
}
var buffer = [UInt8](repeating: 0, count: 1 << 20)
let size = fread(&buffer, 1, buffer.count, file)
fclose(file)
let etag = arguments[3]
let headers = [("Content-Type", "application/json"), ("ETag", etag), ("Cache-Control", "public, max-age=300")]
let handler = StaticHandler(
    ok: PreparedResponse(status: 200, headers: headers, body: Array(buffer[0..<size])),
    notModified: PreparedResponse(status: 304, headers: Array(headers.dropFirst()), body: []),
    etag: Array(etag.utf8))
// Block SIGINT/SIGTERM before MHD starts its threads (they inherit the mask), so sigwait below gets them.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
let server = try HTTPServer(configuration: HTTPServerConfiguration(port: port, threads: 1), handler: handler)
fputs("wrapper_reference listening on \(server.port)\n", stderr)
var received: Int32 = 0
sigwait(&stopSignals, &received)
server.shutdown(gracePeriodSeconds: 0)  // then a clean exit, so valgrind writes its counts
