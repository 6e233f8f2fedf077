import Foundation
import Locking
import MicroHTTPD
import PinSetCore
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// Records every request body it gets: the alert webhook's listener.
final class WebhookListener: HTTPHandler, @unchecked Sendable {
    let bodies = Locked<[String]>([])
    private(set) var server: HTTPServer?

    init() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        server = try HTTPServer(configuration: configuration, handler: self)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(server!.port)/hook")! }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        bodies.withLock { $0.append(body) }
        return .dynamic(status: 204, headers: [], body: [])
    }

    func payloadTooLargeResponse(limit: Int) -> PreparedResponse {
        PreparedResponse(status: 413, headers: [], body: [])
    }

    func internalErrorResponse() -> PreparedResponse { PreparedResponse(status: 500, headers: [], body: []) }

    deinit { server?.shutdown(gracePeriodSeconds: 1) }
}

/// The monitor (issue 14): a real TLS host switches to a key the set does not pin; within two short
/// intervals the status says `failing`, the metric reads 0 and the webhook hears of it.
@Suite(.serialized, .blocking) struct HostMonitorTests {
    func waitFor(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try condition()
    }

    @Test func switchToAnUnpinnedKeyIsFailingWithinTwoIntervals() throws {
        let host = try TLSTestHost()
        let listener = try WebhookListener()
        let interval = 1.0
        let server = try TestServer(
            probes: ProbeConfiguration(
                preflight: .warn, connectTo: [ConnectToRule(host.mapping)!], timeout: 2, monitorInterval: interval,
                alertWebhook: listener.url))
        let put = try server.put(
            host.name,
            #"{"pins":[{"sha256":"\#(try host.pin("current"))"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        )
        #expect(put.status == 201, "\(put.text)")
        func status() throws -> [String: Any] {
            try server.client.request("GET", "/admin/hosts/\(host.name)/status", headers: server.auth).json()
        }
        #expect(try waitFor(seconds: 3 * interval + 3) { try status()["state"] as? String == "ok" })
        #expect(try status()["pinsMatch"] as? Bool == true)

        try host.serve(key: "rogue")
        let switched = Date()
        #expect(try waitFor(seconds: 2 * interval + 3) { try status()["state"] as? String == "failing" })
        #expect(Date().timeIntervalSince(switched) <= 2 * interval + 3)
        let final = try status()
        #expect((final["warnings"] as? [String])?.contains("served-key-not-pinned") == true)
        let served = (final["addresses"] as? [[String: Any]])?.first?["served"] as? [[String: Any]]
        #expect(served?.first?["spki"] as? String == (try host.pin("rogue")))

        let metrics = try server.client.request("GET", "/metrics", headers: server.auth).text
        #expect(metrics.contains("pinset_host_pins_match{host=\"\(host.name)\"} 0"))
        #expect(metrics.contains("pinset_host_certificate_expiry_seconds{host=\"\(host.name)\"} "))

        let hosts = try server.client.request("GET", "/admin/hosts", headers: server.auth).json()
        let summary = (hosts["hosts"] as? [[String: Any]])?.first { $0["host"] as? String == host.name }
        #expect(summary?["state"] as? String == "failing")

        #expect(
            waitFor(seconds: 10) { listener.bodies.withLock { $0.contains { $0.contains(#""state":"failing""#) } } })
        let event = listener.bodies.withLock { $0.first { $0.contains(#""state":"failing""#) } } ?? ""
        let json = try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any] ?? [:]
        #expect(json["host"] as? String == host.name)
        #expect(json["previousState"] as? String == "ok")
        #expect((json["warnings"] as? [String])?.contains("served-key-not-pinned") == true)
    }

    @Test func statusOfAnUnprobedHostIsUnknownAndUnknownHostIs404() throws {
        let server = try TestServer()
        #expect(try server.put("a.example", pinPair(3)).status == 201)
        let status = try server.client.request("GET", "/admin/hosts/a.example/status", headers: server.auth)
        #expect(status.status == 200)
        #expect(try status.json()["state"] as? String == "unknown")
        let missing = try server.client.request("GET", "/admin/hosts/b.example/status", headers: server.auth)
        #expect(missing.status == 404)
        let metrics = try server.client.request("GET", "/metrics").text
        #expect(!metrics.contains("pinset_host_pins_match{"))
    }

    /// Issue 22 item 3, scaled to a unit test: 300 hosts behind one loopback TLS host (a `*.mon.test` mapping), a
    /// 8-second interval and 16 hosts at once; every host gets a stored result within one pass, the pass ends
    /// within the interval and /metrics says how long it took. (`bench/monitor.sh` runs 10,000 hosts and measures
    /// the speed; a pass here takes about a second on a quiet machine, over 4 s under the full suite on 2 cores.)
    @Test func aPassProbesEveryHostWithinTheIntervalAndReportsItsDuration() throws {
        let host = try TLSTestHost()
        let interval = 8.0
        let count = 300
        let server = try TestServer(
            probes: ProbeConfiguration(
                preflight: .off, connectTo: [ConnectToRule("*.mon.test:443:\(host.ip):\(host.port)")!], timeout: 2,
                monitorInterval: interval, monitorConcurrency: 16))
        let pins =
            #"{"pins":[{"sha256":"\#(try host.pin("current"))"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        for index in 0..<count { #expect(try server.put("h\(index).mon.test", pins).status == 201) }

        func metric(_ name: String) throws -> Double? {
            let text = try server.client.request("GET", "/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.split(separator: " ")[1]) }
        }
        // The first pass starts at once with the hosts above (or, if it listed fewer, the next one has them all).
        #expect(try waitFor(seconds: 4 * interval + 10) { try metric("pinset_monitor_pass_hosts") == Double(count) })
        let seconds = try #require(try metric("pinset_monitor_pass_seconds"))
        #expect(seconds <= interval, "a pass over \(count) hosts took \(seconds) s")
        let listing = try server.client.request("GET", "/admin/hosts", headers: server.auth).json()
        let states = (listing["hosts"] as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }
        #expect(states.count == count)
        // Every host was probed and served a chain its pins match.
        #expect(states.allSatisfy { $0 == "ok" }, "\(Dictionary(grouping: states, by: { $0 }).mapValues(\.count))")
    }
}
