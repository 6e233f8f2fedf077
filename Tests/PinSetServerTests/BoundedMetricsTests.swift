import Foundation
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Metrics labels exist only for hosts in the database (issue 17 item 7): reports naming any other host count
/// under one label, so a flood of invented names cannot grow `/metrics`.
@Suite(.blocking) struct BoundedMetricsTests {
    @Test func reportsForUnknownHostsShareOneLabel() throws {
        let server = try TestServer()
        #expect(try server.put("known.example.com", pinPair()).status == 201)
        let pem = try ReportsTests.certificate(in: server.directory, name: "leaf").pem
        for host in ["known.example.com", "a.invented.example", "b.invented.example", "c.invented.example"] {
            let object: [String: Any] = [
                "date-time": "2026-11-21T10:00:00Z", "hostname": host, "port": 443, "noted-hostname": host,
                "include-subdomains": false, "enforce-pinning": true, "validated-certificate-chain": [pem],
                "known-pins": ["pin-sha256=\"\(pin(1))\""], "validation-result": 1,
            ]
            let body = [UInt8](try JSONSerialization.data(withJSONObject: object))
            #expect(try server.client.request("POST", "/reports", body: body).status == 204)
        }
        let metrics = try server.client.request("GET", "/metrics", headers: server.auth).text
        #expect(metrics.contains(#"pinset_reports_total{host="known.example.com"} 1"#))
        #expect(metrics.contains(#"pinset_reports_total{host="(other)"} 3"#))
        #expect(!metrics.contains("invented"))
    }
}
