import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The per-request deadline (``HTTPServerConfiguration/requestTimeoutSeconds``): what closes slowloris clients,
/// which libmicrohttpd's idle timeout (reset by every byte) never does.
@Suite(.blocking) struct RequestTimeoutTests {
    /// Sends `bytes` one at a time, `gap` seconds apart, until the server closes the connection; returns the
    /// seconds it took, or nil when it stayed open for `limit` seconds.
    private func trickle(_ client: RawConnection, _ bytes: [UInt8], gap: Double, limit: Double) -> Double? {
        let start = monotonicSeconds()
        var index = 0
        while monotonicSeconds() - start < limit {
            if (try? client.send([bytes[index % bytes.count]])) == nil { return monotonicSeconds() - start }
            index += 1
            if client.isClosed(waitSeconds: gap) { return monotonicSeconds() - start }
        }
        return nil
    }

    /// A server whose idle timeout (10 s) never fires during a test, so only the request deadline can close.
    private func deadlineServer(requestTimeout: Int) throws -> HTTPServer {
        try startServer {
            $0.idleTimeoutSeconds = 10
            $0.requestTimeoutSeconds = requestTimeout
        }
    }

    @Test func headersTrickledByteByByteAreClosedByTheDeadline() throws {
        let server = try deadlineServer(requestTimeout: 1)
        let client = try RawConnection(port: server.port, timeout: 6)
        try client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n")
        // One header byte every 100 ms keeps the idle timer (10 s) from ever firing.
        let closedAfter = trickle(client, Array("X-Slow: aaaaaaaa\r\n".utf8), gap: 0.1, limit: 5)
        #expect(closedAfter != nil)
        if let closedAfter { #expect(closedAfter >= 0.6 && closedAfter < 3) }
        #expect(server.connectionsClosedByRequestTimeout == 1)
        // The server is unharmed.
        #expect(try TestHTTPClient(port: server.port).request("GET", "/hello").status == 200)
    }

    @Test func bodyTrickledByteByByteIsClosedByTheDeadline() throws {
        let server = try deadlineServer(requestTimeout: 1)
        let client = try RawConnection(port: server.port, timeout: 6)
        try client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n")
        let closedAfter = trickle(client, Array("x".utf8), gap: 0.1, limit: 5)
        #expect(closedAfter != nil)
        #expect(server.connectionsClosedByRequestTimeout == 1)
    }

    @Test func keepAliveClientWithRegularRequestsOutlivesTheWindow() throws {
        let server = try deadlineServer(requestTimeout: 1)
        let client = try RawConnection(port: server.port)
        // 16 requests 150 ms apart: 2.4 s on one connection, each request well inside its own 1 s window.
        for _ in 0..<16 {
            try client.send(get("/hello"))
            #expect(try client.readResponse().status == 200)
            usleep(150_000)
        }
        #expect(server.connectionsClosedByRequestTimeout == 0)
    }

    @Test func idleKeepAliveConnectionGoesWhenTheWindowRunsOut() throws {
        let server = try deadlineServer(requestTimeout: 1)
        let client = try RawConnection(port: server.port, timeout: 5)
        try client.send(get("/hello"))
        #expect(try client.readResponse().status == 200)
        let start = monotonicSeconds()
        #expect(client.waitForClose())
        #expect(monotonicSeconds() - start < 3)
    }

    @Test func zeroTurnsTheDeadlineOff() throws {
        let server = try deadlineServer(requestTimeout: 0)
        let client = try RawConnection(port: server.port)
        try client.send("GET /hello HTTP/1.1\r\n")
        #expect(trickle(client, Array("X-Slow: a\r\n".utf8), gap: 0.1, limit: 1.5) == nil)
        try client.send("\r\n\r\n")
        // The trickled header may be cut mid-line; whatever the status, the connection answered.
        #expect(try client.readResponse().status > 0)
    }

    @Test func negativeTimeoutIsRefused() {
        #expect(throws: HTTPServerError.self) {
            _ = try startServer { $0.requestTimeoutSeconds = -1 }
        }
    }
}
