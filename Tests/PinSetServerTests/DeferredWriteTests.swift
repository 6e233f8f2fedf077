import Foundation
import Locking
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 22 item 2: a write waiting for its probe holds no libmicrohttpd worker. With one worker thread, GETs
/// are answered at once while a write waits for a host that never answers, and stopping the server with such a
/// write in flight answers it and returns. (`unreachableTTL: 0`: each write waits for its own probe, whatever an
/// earlier test's listener on the same port left in the process's table of silent addresses.)
@Suite(.serialized, .blocking) struct DeferredWriteTests {
    @Test func getsAreNotQueuedBehindAProbingWriteOnTheOnlyWorkerThread() throws {
        let silent = try SilentListener()
        let server = try TestServer(
            probes: ProbeConfiguration(
                preflight: .warn, connectTo: [ConnectToRule("slow.example:443:127.0.0.1:\(silent.port)")!],
                timeout: 2, unreachableTTL: 0))
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
                timeout: 2, unreachableTTL: 0))
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
