import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.blocking) struct ConnectionLimitTests {
    @Test func idleConnectionIsClosedAfterTheTimeout() throws {
        let server = try startServer { $0.idleTimeoutSeconds = 1 }
        let client = try RawConnection(port: server.port, timeout: 4)
        try client.send(get("/hello"))
        #expect(try client.readResponse().status == 200)
        let start = monotonicSeconds()
        #expect(client.waitForClose())
        let waited = monotonicSeconds() - start
        #expect(waited >= 0.5 && waited < 3.5)
    }

    @Test func slowClientSendingHalfARequestIsClosed() throws {
        let server = try startServer { $0.idleTimeoutSeconds = 1 }
        let client = try RawConnection(port: server.port, timeout: 4)
        try client.send("GET /hello HTTP/1.1\r\nHo")
        #expect(client.waitForClose())
    }

    @Test func connectionsOverTheLimitWaitUntilOneCloses() throws {
        let server = try startServer {
            $0.threads = 1
            $0.connectionLimit = 2
        }
        let first = try RawConnection(port: server.port)
        let second = try RawConnection(port: server.port)
        for client in [first, second] {
            try client.send(get("/hello"))
            #expect(try client.readResponse().status == 200)
        }
        // At the limit MHD stops accepting: the third connection waits in the kernel's backlog, unanswered.
        let third = try RawConnection(port: server.port, timeout: 3)
        try third.send(get("/hello"))
        #expect(third.pendingBytes(waitSeconds: 0.5) == 0)
        #expect(server.activeConnections == 2)
        // The first two still work; once one closes, the third is served.
        try first.send(get("/hello"))
        #expect(try first.readResponse().status == 200)
        first.close()
        #expect(try third.readResponse().status == 200)
    }

    @Test func connectionsOverThePerAddressLimitAreClosed() throws {
        let server = try startServer {
            $0.threads = 1
            $0.perAddressConnectionLimit = 1
        }
        let first = try RawConnection(port: server.port)
        try first.send(get("/hello"))
        #expect(try first.readResponse().status == 200)
        let second = try RawConnection(port: server.port, timeout: 2)
        try? second.send(get("/hello"))
        #expect(second.waitForClose())
    }
}

func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
