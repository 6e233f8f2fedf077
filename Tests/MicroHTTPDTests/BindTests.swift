import MicroHTTPD
import TestSupport
import Testing

@Suite(.blocking) struct BindTests {
    @Test func bindsOnIPv6Loopback() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(bindAddress: "::1", port: 0), handler: TestHandler())
        #expect(server.port != 0)
        let client = try RawConnection(port: server.port, host: "::1")
        try client.send(get("/info"))
        #expect(try client.readResponse().text.contains("remote=::1"))
    }

    @Test func rejectsANonLiteralBindAddress() {
        #expect(throws: HTTPServerError(.invalidBindAddress("localhost"))) {
            try HTTPServer(configuration: HTTPServerConfiguration(bindAddress: "localhost"), handler: TestHandler())
        }
    }

    @Test func rejectsZeroThreads() {
        #expect(throws: HTTPServerError(.invalidConfiguration("threads"))) {
            try HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 0), handler: TestHandler())
        }
    }

    @Test func portInUseIsABindFailure() throws {
        let first = try startServer()
        #expect(throws: HTTPServerError(.bindFailed("127.0.0.1", first.port))) {
            try HTTPServer(configuration: HTTPServerConfiguration(port: first.port), handler: TestHandler())
        }
        #expect(HTTPServerError(.bindFailed("127.0.0.1", first.port)).description.contains("in use"))
    }
}
