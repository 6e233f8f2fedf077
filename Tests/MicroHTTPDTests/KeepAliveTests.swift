import MicroHTTPD
import TestSupport
import Testing

@Suite(.blocking) struct KeepAliveTests {
    @Test func twoRequestsOnOneConnectionStayOpen() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        for _ in 0..<2 {
            try client.send(get("/hello"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == TestHandler.helloBody)
            #expect(response.headers["connection"]?.lowercased() != "close")
            #expect(response.headers["content-length"] == "\(TestHandler.helloBody.count)")
        }
        #expect(server.activeConnections == 1)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send(get("/hello") + get("/info") + get("/hello"))
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().text.contains("path=/info"))
        #expect(try client.readResponse().body == TestHandler.helloBody)
    }

    @Test func ifNoneMatchGivesNotModified() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send(get("/hello", extra: "If-None-Match: \"abc\"\r\n"))
        let response = try client.readResponse()
        #expect(response.status == 304)
        #expect(response.headers["etag"] == "\"abc\"")
        try client.send(get("/hello", extra: "If-None-Match: \"abd\"\r\n"))
        #expect(try client.readResponse().status == 200)
    }
}
