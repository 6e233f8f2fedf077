import Foundation
import PinSetAdminAPI
import PinSetCore
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 40, item 1: `/metrics` names hosts only to a caller with a token, and only the token's hosts; an anonymous
/// scrape gets the aggregate series.
@Suite(.blocking) struct MetricsExposureTests {
    @Test func anonymousScrapesSeeNoHostName() throws {
        let partner = try TLSTestHost(name: "secret-partner.example.net")
        let server = try TestServer(
            probes: ProbeConfiguration(preflight: .warn, connectTo: [ConnectToRule(partner.mapping)!], timeout: 3))
        // The live host serves `current`; the set pins `rogue`: the probe stores a mismatch (forced through).
        let set =
            #"{"pins":[{"sha256":"\#(try partner.pin("rogue"))"},{"sha256":"\#(try partner.pin("backup"))","role":"backup"}],"force":true}"#
        #expect(try server.put(partner.name, set).status == 201)
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        let report: [String: Any] = [
            "date-time": "2026-11-21T10:00:00Z", "hostname": partner.name, "port": 443, "noted-hostname": partner.name,
            "include-subdomains": false, "enforce-pinning": true, "validated-certificate-chain": [pem],
            "known-pins": ["pin-sha256=\"\(pin(1))\""], "validation-result": 1,
        ]
        let body = [UInt8](try JSONSerialization.data(withJSONObject: report))
        #expect(try server.client.request("POST", "/reports", body: body).status == 204)

        let anonymous = try server.client.request("GET", "/metrics")
        #expect(anonymous.status == 200)
        #expect(!anonymous.text.contains("secret-partner"), "\(anonymous.text)")
        #expect(!anonymous.text.contains("host=\""))
        #expect(anonymous.text.contains("pinset_monitored_hosts 1"))
        #expect(anonymous.text.contains("pinset_monitored_hosts_mismatched 1"))
        #expect(anonymous.text.contains("pinset_reports_received_total 1"))

        let named = try server.client.request("GET", "/metrics", headers: server.auth).text
        #expect(named.contains(#"pinset_host_pins_match{host="secret-partner.example.net"} 0"#), "\(named)")
        #expect(named.contains(#"pinset_reports_total{host="secret-partner.example.net"} 1"#))

        let scope = TokenScope(role: .reader, hosts: [try HostPattern("other.example.org")])
        let other = try server.app!.service.createToken(name: "other-team", scope: scope)
        let scoped = try server.client.request("GET", "/metrics", headers: ["Authorization": "Bearer \(other)"])
        #expect(scoped.status == 200 && !scoped.text.contains("secret-partner"), "\(scoped.text)")

        let wrong = try server.client.request(
            "GET", "/metrics", headers: ["Authorization": "Bearer pst_" + String(repeating: "x", count: 43)])
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate") != nil)
    }
}
