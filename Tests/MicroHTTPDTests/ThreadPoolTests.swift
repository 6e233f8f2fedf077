import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.blocking) struct ThreadPoolTests {
    /// Three handlers that each block for 0.8 s finish together on a pool of three threads.
    @Test func slowRequestsRunInParallelOnThePool() throws {
        // MHD splits the connection limit between the pool's threads: 3 over 3 threads is one connection per
        // thread, so the three connections below land on three different threads.
        let server = try startServer {
            $0.threads = 3
            $0.connectionLimit = 3
        }
        let clients = try (0..<3).map { _ in try RawConnection(port: server.port) }
        let start = monotonicSeconds()
        for client in clients { try client.send(get("/slow")) }
        for client in clients { #expect(try client.readResponse().text == "done") }
        // One thread would need 3 × 0.8 s = 2.4 s.
        #expect(monotonicSeconds() - start < 2.0)
    }

    @Test func singleThreadServesOneSlowRequestAtATime() throws {
        let server = try startServer { $0.threads = 1 }
        let clients = try (0..<2).map { _ in try RawConnection(port: server.port) }
        let start = monotonicSeconds()
        for client in clients { try client.send(get("/slow")) }
        for client in clients { #expect(try client.readResponse().status == 200) }
        #expect(monotonicSeconds() - start >= 1.5)
    }
}
