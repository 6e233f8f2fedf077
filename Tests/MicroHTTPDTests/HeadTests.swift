import MicroHTTPD
import TestSupport
import Testing

@Suite(.blocking) struct HeadTests {
    @Test func headGivesTheHeadersAndLengthWithoutBody() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse(bodyless: true)
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "\(TestHandler.helloBody.count)")
        #expect(response.headers["etag"] == "\"abc\"")
        #expect(client.pendingBytes(waitSeconds: 0.3) == 0)
        // Still keep-alive: a GET on the same connection gets the body.
        try client.send(get("/hello"))
        #expect(try client.readResponse().body == TestHandler.helloBody)
    }
}
