import Foundation
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 40: "daemon.c:3831 Failed to remove FD from epoll set" aborted a test process that ran libmicrohttpd
/// servers. In libmicrohttpd 0.9.75 that line is `MHD_cleanup_connections`: its `EPOLL_CTL_DEL` of a connection's
/// socket failed, so the socket had been closed behind libmicrohttpd's back. `RawConnection` did it: a refused
/// connect closed the socket in `init`, and the throw then ran `deinit`, which closed the same number again. When
/// another thread had opened a descriptor in between (a server in the same process accepting a connection), that
/// descriptor was closed instead. Here a thread keeps opening pipes and checks that each stays its own while
/// refused connections are made; before the fix, 20,000 of them closed 232 of its descriptors (measured with a copy
/// of the old code); now none.
@Suite(.blocking) struct RefusedConnectionTests {
    /// A watcher thread's findings, shared with the test.
    final class Watch: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var closedBehindItsBack = 0
        private var checked = 0
        let done = DispatchSemaphore(value: 0)

        var isStopped: Bool { lock.withLock { stopped } }
        func stop() { lock.withLock { stopped = true } }
        func count(stolen: Bool) { lock.withLock { if stolen { closedBehindItsBack += 1 } else { checked += 1 } } }
        var result: (stolen: Int, checked: Int) { lock.withLock { (closedBehindItsBack, checked) } }
    }

    /// A loopback port nothing listens on (bound for a moment to learn it, then closed).
    static func refusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The abort itself: a libmicrohttpd server answers a client thread while this thread makes refused
    /// connections. With the old `RawConnection` this process aborted in 3 runs of 3 (30,000 refusals each:
    /// "libmicrohttpd panic at daemon.c:3831: Failed to remove FD from epoll set. (errno 9: Bad file descriptor)",
    /// or daemon.c:2927 "Close socket failed", EBADF too); now it runs to the end.
    @Test func refusedConnectionsBesideABusyServerLeaveItsSocketsAlone() throws {
        let server = try startServer()
        let port = try Self.refusedPort()
        let watch = Watch()
        let serverPort = server.port
        let client = Thread {
            while !watch.isStopped {
                guard let connection = try? RawConnection(port: serverPort, timeout: 2) else { continue }
                try? connection.send(get("/hello"))
                watch.count(stolen: (try? connection.readResponse().status) != 200)
            }
            watch.done.signal()
        }
        client.start()
        for _ in 0..<10_000 { _ = RawConnection.accepts(host: "127.0.0.1", port: port) }
        watch.stop()
        #expect(watch.done.wait(timeout: .now() + 10) == .success)
        let (failed, answered) = watch.result
        print("issue 40: 10000 refused connections beside \(answered) answered requests (\(failed) unanswered)")
        // The process is still here: that is the check. Unanswered requests are only reported (a loaded machine
        // may time one out); answered ones show the server was busy all along.
        #expect(answered > 0)
    }

    @Test func aRefusedConnectionClosesItsOwnSocketOnceAndNoOtherDescriptor() throws {
        let port = try Self.refusedPort()
        let watch = Watch()
        let watcher = Thread {
            var ends: [Int32] = [0, 0]
            while !watch.isStopped {
                guard pipe(&ends) == 0 else { continue }
                var first = stat()
                fstat(ends[0], &first)
                var stolen = false
                for _ in 0..<20 {
                    var now = stat()
                    if fstat(ends[0], &now) != 0 || now.st_ino != first.st_ino || now.st_dev != first.st_dev {
                        stolen = true
                        break
                    }
                }
                watch.count(stolen: stolen)
                // A pipe whose end was closed by someone else is not closed again here (that would be the bug).
                if !stolen { close(ends[0]) }
                close(ends[1])
            }
            watch.done.signal()
        }
        watcher.start()
        var refused = 0
        for _ in 0..<5_000 where !RawConnection.accepts(host: "127.0.0.1", port: port) { refused += 1 }
        watch.stop()
        #expect(watch.done.wait(timeout: .now() + 10) == .success)
        let (stolen, checked) = watch.result
        print(
            "issue 40: \(refused) refused connections beside \(checked) pipes: \(stolen) descriptors closed behind "
                + "their owner's back")
        #expect(refused > 4_000, "the port stayed refused (another test may have taken it for a moment)")
        #expect(stolen == 0, "a refused RawConnection closed a descriptor it did not own")
    }
}
