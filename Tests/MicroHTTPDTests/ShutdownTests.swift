import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.blocking) struct ShutdownTests {
    @Test func inFlightSlowRequestFinishesDuringGracefulShutdown() throws {
        let server = try startServer()
        let port = server.port
        let client = try RawConnection(port: port)
        try client.send(get("/slow"))
        usleep(200_000)  // the handler is now sleeping
        let start = monotonicSeconds()
        server.shutdown(gracePeriodSeconds: 5)
        let took = monotonicSeconds() - start
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "done")
        #expect(took < 4)
        // No longer listening.
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
        server.shutdown()  // idempotent
    }

    @Test func shutdownWithIdleKeepAliveConnectionDoesNotWaitForTheGracePeriod() throws {
        let server = try startServer()
        let client = try RawConnection(port: server.port)
        try client.send(get("/hello"))
        #expect(try client.readResponse().status == 200)
        let start = monotonicSeconds()
        server.shutdown(gracePeriodSeconds: 5)
        #expect(monotonicSeconds() - start < 1)
        #expect(client.waitForClose())
    }
}
