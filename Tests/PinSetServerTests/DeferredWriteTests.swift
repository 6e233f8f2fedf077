import Foundation
import Locking
import PinSetProbe
import Testing

@testable import PinSetServer

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener that never accepts: the kernel completes the connection, nobody ever answers the ClientHello,
/// so a probe of it waits until its deadline (a host that does not answer).
final class SilentListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}

/// Issue 22 item 2: a write waiting for its probe holds no libmicrohttpd worker. With one worker thread, GETs
/// are answered at once while a write waits for a host that never answers, and stopping the server with such a
/// write in flight answers it and returns.
@Suite(.serialized) struct DeferredWriteTests {
    @Test func getsAreNotQueuedBehindAProbingWriteOnTheOnlyWorkerThread() throws {
        let silent = try SilentListener()
        let server = try TestServer(
            probes: ProbeConfiguration(
                preflight: .warn, connectTo: [ConnectToRule("slow.example:443:127.0.0.1:\(silent.port)")!],
                timeout: 2))
        server.stop()
        server.configuration.http.threads = 1
        try server.start()
        #expect(try server.put("fast.example", pinPair()).status == 201)

        let write = Locked<(status: Int, preflight: String?, seconds: Double)?>(nil)
        let writer = Thread {
            let started = Date()
            let response = try? server.put("slow.example", pinPair(2))
            let preflight = (try? response?.json()["preflight"] as? [String: Any])??["status"] as? String
            write.withLock { $0 = (response?.status ?? 0, preflight, Date().timeIntervalSince(started)) }
        }
        writer.start()
        Thread.sleep(forTimeInterval: 0.3)
        var slowest = 0.0
        for _ in 0..<20 {
            let started = Date()
            #expect(try server.client.request("GET", "/pins/fast.example").status == 200)
            slowest = max(slowest, Date().timeIntervalSince(started))
        }
        #expect(write.withLock { $0 } == nil, "the write was expected to be still waiting for its probe")
        #expect(slowest < 0.5, "a GET waited \(slowest) s behind the probing write")

        let deadline = Date().addingTimeInterval(10)
        while write.withLock({ $0 }) == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let result = try #require(write.withLock { $0 })
        #expect(result.status == 201)
        #expect(result.preflight == "unreachable")
        #expect(result.seconds >= 1.9 && result.seconds < 2.6, "\(result.seconds) s for a 2 s probe deadline")
    }

    @Test func stoppingTheServerLetsAWriteWaitingForItsProbeFinish() throws {
        let silent = try SilentListener()
        let server = try TestServer(
            probes: ProbeConfiguration(
                preflight: .warn, connectTo: [ConnectToRule("slow.example:443:127.0.0.1:\(silent.port)")!],
                timeout: 2))
        let status = Locked<Int?>(nil)
        let writer = Thread {
            let response = try? server.put("slow.example", pinPair(2))
            status.withLock { $0 = response?.status ?? 0 }
        }
        writer.start()
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        // A grace period shorter than the probe: the write still finishes (it is answered with its own result,
        // before the database closes), and the stop waits for it, no longer.
        server.stop()
        let took = Date().timeIntervalSince(started)
        #expect(took > 1.4 && took < 3, "stop took \(took) s")
        let deadline = Date().addingTimeInterval(5)
        while status.withLock({ $0 }) == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(status.withLock { $0 } == 201)
        // What was acknowledged is there after a restart.
        try server.start()
        #expect(try server.client.request("GET", "/pins/slow.example").status == 200)
    }
}
