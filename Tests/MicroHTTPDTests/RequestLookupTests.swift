import MicroHTTPD
import TestSupport
import Testing

@Suite(.blocking) struct RequestLookupTests {
    @Test func headersQueryMethodPathAndRemoteAddress() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send("PATCH /info?q=a%20b&flag HTTP/1.1\r\nHost: x\r\nX-Test: Value 1\r\nContent-Length: 0\r\n\r\n")
        let lines = Set(try client.readResponse().text.split(separator: "\n").map(String.init))
        #expect(lines.contains("method=patch"))
        #expect(lines.contains("path=/info"))
        #expect(lines.contains("x-test=Value 1"))
        #expect(lines.contains("q=a b"))
        #expect(lines.contains("flag="))
        #expect(lines.contains("missing=nil"))
        #expect(lines.contains("remote=127.0.0.1"))
    }

    @Test func otherMethodsKeepTheirSpelling() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send("PROPFIND /info HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text.contains("method=other(\"PROPFIND\")"))
    }

    @Test func malformedRequestGetsAnErrorAndTheServerLivesOn() throws {
        let server = try startServer()
        let bad = try RawConnection(port: server.port)
        try bad.send("GARBAGE\r\n\r\n")
        let response = try? bad.readResponse()
        #expect(response.map { $0.status >= 400 } ?? true)
        let bad2 = try RawConnection(port: server.port)
        try bad2.send("GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
        _ = try? bad2.readResponse()
        #expect(try TestHTTPClient(port: server.port).request("GET", "/hello").status == 200)
    }

    @Test func dynamicResponseWithInjectedHeaderBecomesA500() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send(get("/bad-header"))
        let response = try client.readResponse()
        #expect(response.status == 500)
        #expect(response.headers["injected"] == nil)
        #expect(response.text.contains("urn:pinset:problem:internal"))
    }
}
