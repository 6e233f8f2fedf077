import Dispatch
import Foundation
import Locking
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Deferred work (``HTTPResponse/deferred(_:)``) runs on a few reused threads, at most
/// ``HTTPServerConfiguration/deferredThreads``, and a request past ``HTTPServerConfiguration/maxSuspended`` gets `503`
/// with `Retry-After` at once instead of a queue without bound (issue 35: a new thread per deferred write cost
/// 20–50 µs).
@Suite(.blocking) struct DeferredPoolTests {
    /// `/defer` waits `pause` microseconds off the worker thread and answers with the kernel id of the thread that
    /// ran it; `/hold` waits until `gate` is signalled.
    struct DeferringHandler: HTTPHandler {
        let pause: useconds_t
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)

        func payloadTooLargeResponse(limit: Int) -> PreparedResponse {
            PreparedResponse(status: 413, headers: [], body: [])
        }

        func internalErrorResponse() -> PreparedResponse { PreparedResponse(status: 500, headers: [], body: []) }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            switch request.path {
            case "/defer":
                return .deferred { [pause] _ in
                    usleep(pause)
                    return .dynamic(status: 200, headers: [], body: Array(DeferredPoolTests.threadNumber().utf8))
                }
            case "/hold":
                return .deferred { [gate, entered] _ in
                    entered.signal()
                    _ = gate.wait(timeout: .now() + 30)
                    return .dynamic(status: 200, headers: [], body: Array("released".utf8))
                }
            default:
                return .dynamic(status: 200, headers: [], body: Array("now".utf8))
            }
        }
    }

    /// A number for the calling thread, new for each thread (never reused, unlike a `pthread_t`).
    static func threadNumber() -> String {
        if let number = Thread.current.threadDictionary["DeferredPoolTests.number"] as? Int { return String(number) }
        let number = counter.withLock {
            $0 += 1
            return $0
        }
        Thread.current.threadDictionary["DeferredPoolTests.number"] = number
        return String(number)
    }

    private static let counter = Locked(0)

    @Test func sequentialDeferredRequestsReuseOneThread() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1), handler: DeferringHandler(pause: 0))
        let client = TestHTTPClient(port: server.port)
        var threads = Set<String>()
        for _ in 0..<20 {
            let answer = try client.request("GET", "/defer")
            #expect(answer.status == 200)
            threads.insert(answer.text)
        }
        #expect(threads.count == 1, "\(threads)")
    }

    @Test func concurrentDeferredWorkStaysOnAtMostDeferredThreads() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1, deferredThreads: 2),
            handler: DeferringHandler(pause: 100_000))
        let client = TestHTTPClient(port: server.port)
        let answers = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let answer = try? client.request("GET", "/defer")
            answers.withLock { $0.append(answer.map { "\($0.status) \($0.text)" } ?? "failed") }
        }
        let all = answers.withLock { $0 }
        #expect(all.count == 6 && all.allSatisfy { $0.hasPrefix("200 ") }, "\(all)")
        #expect(Set(all).count <= 2, "\(all)")
    }

    @Test func pastMaxSuspendedARequestGets503WithRetryAfterAndGetsStillAnswer() throws {
        let handler = DeferringHandler(pause: 0)
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threads: 1, maxSuspended: 1, deferredThreads: 1),
            handler: handler)
        let client = TestHTTPClient(port: server.port)
        let held = Locked<Int?>(nil)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let status = (try? client.request("GET", "/hold"))?.status ?? 0
            held.withLock { $0 = status }
        }
        #expect(handler.entered.wait(timeout: .now() + 30) == .success)
        let refused = try client.request("GET", "/hold")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(try client.request("GET", "/now").text == "now")
        handler.gate.signal()
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(held.withLock { $0 } == 200)
    }
}
