import MicroHTTPD
import TestSupport
import Testing

/// The default 32 KiB connection pool: generous headers pass on a keep-alive connection, a header block over
/// the pool is refused with 431 and nothing else breaks.
@Suite(.blocking) struct HeaderSizeTests {
    @Test func twentyKilobytesOfHeadersPassAndKeepAliveHolds() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        let big = "X-Padding: " + String(repeating: "a", count: 20_000) + "\r\n"
        for _ in 0..<3 {
            try client.send(get("/hello", extra: big + "If-None-Match: \"zzz\"\r\n"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == TestHandler.helloBody)
        }
        #expect(server.activeConnections == 1)
    }

    @Test func aHeaderBlockOverThePoolIsRefusedWith431() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send(get("/hello", extra: "X-Padding: " + String(repeating: "a", count: 40_000) + "\r\n"))
        let response = try client.readResponse()
        #expect(response.status == 431)
        // The server still answers new connections.
        #expect(try TestHTTPClient(port: server.port).request("GET", "/hello").status == 200)
    }
}
