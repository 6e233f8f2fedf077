import Foundation
import Locking
import PinSetStorage
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 40, B5r: `POST /reports` stores off libmicrohttpd's threads, in group commits, and answers `204` only once
/// the report is committed; a flood of reports leaves GETs on the same (only) worker thread prompt.
@Suite(.blocking) struct ReportFloodTests {
    /// A commit that takes a while sees every report that arrives meanwhile: many reports, few commits, each caller
    /// told of its own report.
    @Test func concurrentReportsShareCommits() throws {
        let groups = Locked<[Int]>([])
        let writer = ReportWriter(capacity: 64) { entries throws(ServiceError) in
            usleep(50_000)
            groups.withLock { $0.append(entries.count) }
            return entries.map { $0.seconds % 2 == 0 }
        }
        let answers = Locked<[Int64: Bool]>([:])
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            let entry = ReportWriter.Entry(row: Self.row("r\(index).example"), seconds: Int64(index), cutoff: 0)
            let duplicate = try? writer.store(entry)
            answers.withLock { $0[Int64(index)] = duplicate }
        }
        let sizes = groups.withLock { $0 }
        #expect(sizes.reduce(0, +) == 24)
        #expect(sizes.count < 24, "\(sizes)")
        #expect(answers.withLock { $0 }.allSatisfy { $0.value == ($0.key % 2 == 0) })
    }

    /// Past its capacity the writer answers 429 with Retry-After at once, rather than queue without bound.
    @Test func aFullQueueAnswersTooManyRequests() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writer = ReportWriter(capacity: 1) { entries throws(ServiceError) in
            entered.signal()
            release.wait()
            return entries.map { _ in false }
        }
        let done = DispatchGroup()
        // One report in the commit (blocked), one waiting in the queue: the queue is full. Each step is awaited, not
        // slept on: were the test's own report the first, it would commit it and wait for a release never sent.
        DispatchQueue.global().async(group: done) {
            _ = try? writer.store(ReportWriter.Entry(row: Self.row("q0.example"), seconds: 1, cutoff: 0))
        }
        #expect(entered.wait(timeout: .now() + 30) == .success)
        DispatchQueue.global().async(group: done) {
            _ = try? writer.store(ReportWriter.Entry(row: Self.row("q1.example"), seconds: 1, cutoff: 0))
        }
        var polls = 0
        while writer.waiting < 1 && polls < 3000 {  // at most 30 s
            usleep(10_000)
            polls += 1
        }
        #expect(writer.waiting == 1)
        var refused: ServiceError?
        if writer.waiting == 1 {
            do {
                _ = try writer.store(ReportWriter.Entry(row: Self.row("late.example"), seconds: 1, cutoff: 0))
            } catch {
                refused = error
            }
        }
        release.signal()
        release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(refused?.code == .tooManyRequests)
        #expect(refused?.retryAfter == 1)
    }

    /// A flood of reports from four connections does not hold GETs on the server's only worker thread, and every
    /// report answered 204 is in the store.
    @Test func aFloodOfReportsLeavesGetsPromptAndStoresEveryAcknowledgedReport() throws {
        let server = try TestServer(
            reports: ReportConfiguration(perAddressPerMinute: 100_000, otherHostsPerMinute: 100_000))
        server.stop()
        server.configuration.http.threads = 1
        try server.start()
        #expect(try server.put("bank.example.com", pinPair()).status == 201)
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        let client = server.client
        let acknowledged = Locked<[String]>([])
        let others = Locked<[Int]>([])
        let flood = DispatchGroup()
        for worker in 0..<4 {
            DispatchQueue.global().async(group: flood) {
                for index in 0..<100 {
                    let host = "flood\(worker)-\(index).example.net"
                    let body = ReportBoundsTests.report(host, chain: [pem])
                    guard let answer = try? client.request("POST", "/reports", body: body) else { continue }
                    if answer.status == 204 {
                        acknowledged.withLock { $0.append(host) }
                    } else {
                        others.withLock { $0.append(answer.status) }
                    }
                }
            }
        }
        var latencies: [Double] = []
        while flood.wait(timeout: .now()) == .timedOut && latencies.count < 2_000 {
            let start = Date()
            let answer = try client.request("GET", "/pins/bank.example.com")
            latencies.append(Date().timeIntervalSince(start))
            #expect(answer.status == 200)
        }
        #expect(flood.wait(timeout: .now() + 120) == .success)
        latencies.sort()
        let p90 = latencies.isEmpty ? 0 : latencies[latencies.count * 9 / 10]
        // Generous: the machine is shared; an fsync per report on the GET's thread queued GETs behind them.
        #expect(p90 < 0.5, "GET p90 \(p90) s over \(latencies.count) GETs")
        let listing = try server.client.request("GET", "/admin/reports", headers: server.auth).json()
        let groups = try #require(listing["groups"] as? [[String: Any]])
        let stored = Set(groups.compactMap { $0["host"] as? String }.filter { $0.hasPrefix("flood") })
        let answered = acknowledged.withLock { $0 }
        #expect(answered.count >= 300, "204s: \(answered.count); other answers: \(others.withLock { $0 }.prefix(10))")
        #expect(Set(answered).subtracting(stored).isEmpty, "acknowledged but not stored")
    }

    /// Reports checked off the request thread hold at most `limit` places of the deferred pool: past it, 429; a
    /// place frees when its work ran or when the work was dropped unrun (the pool's own 503).
    @Test func reportsHoldAtMostTheirShareOfTheDeferredPool() throws {
        let admission = ReportAdmission(limit: 2)
        var first = admission.enter()
        var work: (@Sendable () -> Void)? = { [ticket = admission.enter()] in withExtendedLifetime(ticket) {} }
        #expect(first != nil && admission.current == 2 && admission.enter() == nil)
        first = nil  // its work ran
        #expect(admission.current == 1)
        work = nil  // the work dropped unrun
        #expect(admission.current == 0 && work == nil)
    }

    /// The server answers 429 with Retry-After, on the request thread, once the reports' places are taken (none
    /// here), and GETs go on.
    @Test func aServerWhoseReportPlacesAreTakenAnswersTooManyRequests() throws {
        let server = try TestServer(reports: ReportConfiguration(maxChecking: 0))
        #expect(try server.put("bank.example.com", pinPair()).status == 201)
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        let answer = try server.client.request(
            "POST", "/reports", body: ReportBoundsTests.report("bank.example.com", chain: [pem]))
        #expect(answer.status == 429 && answer.header("Retry-After") == "1", "\(answer.status)")
        #expect(String(decoding: answer.body, as: UTF8.self).contains("being checked"))
        #expect(try server.client.request("GET", "/pins/bank.example.com").status == 200)
    }

    static func row(_ host: String) -> ReportTable.NewReport {
        ReportTable.NewReport(
            fingerprint: Array(host.utf8), host: host, notedHost: host, leafPin: "", matchesCurrentPin: false,
            enforce: true, knownPins: [], chain: [])
    }
}
