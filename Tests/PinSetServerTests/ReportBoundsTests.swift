import Foundation
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 40, item 4: `POST /reports` is bounded (bytes per report and in total), a flood of junk cannot push out the
/// reports of a pinned host, names without a set share one budget, IPv6 counts per /64, and `X-Forwarded-For` is
/// believed only from a configured proxy.
@Suite(.blocking) struct ReportBoundsTests {
    /// A TrustKit report for `host` (as `noted-hostname` too) with `chain`.
    static func report(_ host: String, chain: [String], knownPins: [String] = []) -> [UInt8] {
        let object: [String: Any] = [
            "date-time": "2026-11-21T10:00:00Z", "hostname": host, "port": 443, "noted-hostname": host,
            "include-subdomains": false, "enforce-pinning": true, "validated-certificate-chain": chain,
            "known-pins": knownPins, "validation-result": 1,
        ]
        return [UInt8](try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    @Test func aReportStoresAtMostItsBytes() throws {
        let server = try TestServer()
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        let padded = Self.report(
            "www.example.com", chain: [pem] + Array(repeating: String(repeating: "A", count: 3_000), count: 15))
        #expect(padded.count > 16_384 && padded.count < 65_536)
        let answer = try server.client.request("POST", "/reports", body: padded)
        #expect(answer.status == 413, "\(answer.status) \(answer.text)")
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(
            try server.client.request("POST", "/reports", body: Self.report("www.example.com", chain: [pem])).status
                == 204)
        #expect(ReportConfiguration().rowsPerClass * ReportConfiguration().maxReportBytes * 2 <= 64 << 20)
    }

    @Test func aFloodOfJunkCannotPushOutAPinnedHostsReports() throws {
        let server = try TestServer(
            reports: ReportConfiguration(maxRows: 5, perAddressPerMinute: 10_000, otherHostsPerMinute: 10_000))
        #expect(try server.put("bank.example.com", pinPair()).status == 201)
        let certificates = try (0..<2).map { try ReportsTests.certificate(in: server.directory, name: "c\($0)") }
        // The real interception, reported by three clients.
        let real = Self.report(
            "bank.example.com", chain: [certificates[0].pem], knownPins: ["pin-sha256=\"\(pin(1))\""])
        for _ in 0..<3 { #expect(try server.client.request("POST", "/reports", body: real).status == 204) }
        // Junk: invented names, then one-off reports naming the pinned host.
        for index in 0..<30 {
            let junk = Self.report("junk\(index).example.net", chain: [certificates[1].pem])
            #expect(try server.client.request("POST", "/reports", body: junk).status == 204)
        }
        for index in 0..<10 {
            let junk = Self.report(
                "bank.example.com", chain: [certificates[1].pem], knownPins: ["pin-sha256=\"\(pin(UInt8(index)))\""])
            #expect(try server.client.request("POST", "/reports", body: junk).status == 204)
        }
        let listing = try server.client.request("GET", "/admin/reports?host=bank.example.com", headers: server.auth)
        let groups = try #require(try listing.json()["groups"] as? [[String: Any]])
        let intercepted = try #require(groups.first { $0["leafPin"] as? String == certificates[0].pin }, "\(groups)")
        #expect(intercepted["count"] as? Int == 3)
        // The console's summaries: the pinned host first, its day count whole (3 + 10).
        let all = try server.client.request("GET", "/admin/reports", headers: server.auth).json()
        #expect(((all["groups"] as? [[String: Any]])?.first?["host"] as? String) == "bank.example.com")
        let days = try #require(all["days"] as? [[String: Any]])
        #expect(days.first { $0["host"] as? String == "bank.example.com" }?["count"] as? Int == 13, "\(days)")
    }

    @Test func namesWithoutASetShareOneBudget() throws {
        let server = try TestServer(reports: ReportConfiguration(perAddressPerMinute: 1_000, otherHostsPerMinute: 3))
        #expect(try server.put("bank.example.com", pinPair()).status == 201)
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        for index in 0..<3 {
            #expect(
                try server.client.request("POST", "/reports", body: Self.report("x\(index).example", chain: [pem]))
                    .status == 204)
        }
        let limited = try server.client.request("POST", "/reports", body: Self.report("x9.example", chain: [pem]))
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        // A pinned host's report still gets through.
        #expect(
            try server.client.request("POST", "/reports", body: Self.report("bank.example.com", chain: [pem])).status
                == 204)
    }

    /// Junk naming a host without a set spends that budget before it is decoded, so that past it a flood of junk
    /// costs a one-pass read and a `429`, not a decoder (issue 40's B5r). Junk for a pinned host is still decoded
    /// (`400`), and a host spelled with escapes counts as a name without a set.
    @Test func junkForNamesWithoutASetSpendsTheirBudgetBeforeItIsDecoded() throws {
        let server = try TestServer(reports: ReportConfiguration(perAddressPerMinute: 1_000, otherHostsPerMinute: 3))
        #expect(try server.put("bank.example.com", pinPair()).status == 201)
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        func post(_ body: [UInt8]) throws -> TestHTTPClient.Response {
            try server.client.request("POST", "/reports", body: body)
        }
        for index in 0..<3 {
            #expect(try post(Self.report("junk\(index).example", chain: ["not a certificate"])).status == 400)
        }
        let refused = try post(Self.report("junk9.example", chain: ["not a certificate"]))
        #expect(refused.status == 429)
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try post(Self.report("real.example", chain: [pem])).status == 429, "the junk spent the budget")
        #expect(try post(Self.report("bank.example.com", chain: ["not a certificate"])).status == 400)
        let escaped = String(decoding: Self.report("bank.example.com", chain: [pem]), as: UTF8.self)
            .replacingOccurrences(of: "\"bank.example.com\"", with: "\"b\\u0061nk.example.com\"")
        #expect(try post(Array(escaped.utf8)).status == 429, "an escaped name is not known to be pinned")
        #expect(try post(Self.report("bank.example.com", chain: [pem])).status == 204)
    }

    /// ``ReportPeek`` reads the two top-level names as the decoder will, and gives up on escapes.
    @Test func thePeekReadsTheTopLevelNamesOnly() {
        func host(_ text: String) -> String? { ReportPeek(Array(text.utf8)).host }
        #expect(host(#"{"hostname":"a.example","noted-hostname":"b.example"}"#) == "b.example")
        #expect(host(#"{"noted-hostname" : "", "hostname" :"a.example"}"#) == "a.example")
        #expect(
            host(#"{"x":{"noted-hostname":"deep.example"},"hostname":"a.example","noted-hostname":""}"#) == "a.example")
        #expect(host(#"{"c":["\"noted-hostname\":\"s.example\""],"hostname":"a","noted-hostname":"b"}"#) == "b")
        #expect(host(#"{"hostname":"a.example"}"#) == nil, "noted-hostname missing: the decoder refuses it")
        #expect(host(#"{"hostname":"a.example","noted-hostname":7}"#) == nil)
        #expect(host(#"{"hostname":"a.example","noted-hostname":"b\u002eexample"}"#) == nil)
        #expect(host(#"{"hostname":"a.example","noted\u002dhostname":"b.example"}"#) == nil)
        #expect(host(#"{"hostname":"a.example","noted-hostname":"b.exa"#) == nil)
        #expect(ReportPeek(Array(#"{"pinset-report":"log-fork"}"#.utf8)).namesAKind)
        #expect(!ReportPeek(Array(#"{"x":{"pinset-report":"log-fork"}}"#.utf8)).namesAKind)
    }

    @Test func forwardedForIsBelievedOnlyFromATrustedProxy() throws {
        let pemServer = try TestServer()
        let pem = try ReportsTests.certificate(in: pemServer.directory, name: "leaf").pem
        let body = Self.report("www.example.com", chain: [pem])
        func post(_ server: TestServer, _ forwarded: String) throws -> Int {
            try server.client.request("POST", "/reports", headers: ["X-Forwarded-For": forwarded], body: body).status
        }
        let proxied = try TestServer(
            reports: ReportConfiguration(perAddressPerMinute: 2, trustedProxies: ["127.0.0.1"]))
        #expect(try post(proxied, "203.0.113.5") == 204)
        #expect(try post(proxied, "198.51.100.1, 203.0.113.5") == 204)
        #expect(try post(proxied, "203.0.113.5") == 429, "the same client behind the proxy")
        #expect(try post(proxied, "203.0.113.6") == 204, "another client behind the proxy")
        // Without a trusted proxy the header is anyone's to write: every report counts against the peer.
        let direct = try TestServer(reports: ReportConfiguration(perAddressPerMinute: 2))
        #expect(try post(direct, "203.0.113.5") == 204)
        #expect(try post(direct, "203.0.113.6") == 204)
        #expect(try post(direct, "203.0.113.7") == 429)
    }

    @Test func ipv6CountsPerSlash64() {
        let sender = ReportClientAddress(trustedProxies: [])
        let a = sender.key(remote: "2001:db8:1:2::1", forwardedFor: nil)
        #expect(a == sender.key(remote: "2001:db8:1:2:ffff:eeee:dddd:cccc", forwardedFor: nil))
        #expect(a != sender.key(remote: "2001:db8:1:3::1", forwardedFor: nil))
        #expect(sender.key(remote: "::ffff:192.0.2.7", forwardedFor: nil) == "192.0.2.7")
        #expect(sender.key(remote: "192.0.2.7", forwardedFor: "198.51.100.1") == "192.0.2.7")
        #expect(a == "20010db800010002::/64")
        // Behind a trusted proxy: the rightmost hop that is not a proxy, spaces and tabs around entries ignored.
        let proxied = ReportClientAddress(trustedProxies: ["127.0.0.1", "10.0.0.9"])
        #expect(
            proxied.key(remote: "127.0.0.1", forwardedFor: "198.51.100.1, \t203.0.113.4\t , 10.0.0.9") == "203.0.113.4")
        #expect(proxied.key(remote: "127.0.0.1", forwardedFor: " 2001:db8:9:9::5 ") == "20010db800090009::/64")
        #expect(proxied.key(remote: "127.0.0.1", forwardedFor: "  ,") == "127.0.0.1")
    }
}
