import Foundation
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// `POST /reports` and `GET /admin/reports` (issue 7).
@Suite(.blocking) struct ReportsTests {
    /// A self-signed certificate made by the openssl CLI, and its SPKI pin.
    static func certificate(in directory: URL, name: String) throws -> (pem: String, pin: String) {
        let dir = directory.path
        try run(
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(dir)/\(name).key", "-out", "\(dir)/\(name).pem", "-subj", "/CN=\(name)", "-days", "2")
        let pin = try runArgs([
            "sh", "-c",
            "openssl x509 -in \(dir)/\(name).pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
        ])
        .trimmingCharacters(in: .whitespacesAndNewlines)
        return (try String(contentsOfFile: "\(dir)/\(name).pem", encoding: .utf8), pin)
    }

    /// A report with exactly TrustKit's documented fields (TSKPinFailureReport), as TrustKit sends it.
    static func trustKitReport(chain: [String], knownPins: [String], host: String = "www.example.com") -> [UInt8] {
        let object: [String: Any] = [
            "app-bundle-id": "com.example.app", "app-version": "1.0",
            "app-vendor-id": "599F9C00-92DC-4B5C-9464-7971F01F8370",
            "app-platform": "IOS", "app-platform-version": "17.4.1", "trustkit-version": "3.0.3",
            "hostname": host, "port": 443, "noted-hostname": "example.com", "include-subdomains": true,
            "enforce-pinning": true, "validated-certificate-chain": chain,
            "known-pins": knownPins.map { "pin-sha256=\"\($0)\"" }, "validation-result": 1,
            "date-time": "2026-11-21T10:00:00Z",
        ]
        return [UInt8](try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    @Test func trustKitReportsAreAcceptedDeduplicatedAndGrouped() throws {
        let server = try TestServer()
        let served = try Self.certificate(in: server.directory, name: "intercepted")
        let pinned = try Self.certificate(in: server.directory, name: "genuine")
        _ = try server.put(
            "example.com",
            #"{"pins":[{"sha256":"\#(pinned.pin)"},{"sha256":"\#(pin(9))","role":"backup"}],"includeSubdomains":true}"#)
        let body = Self.trustKitReport(chain: [served.pem], knownPins: [pinned.pin, pin(9)])
        for _ in 0..<3 {
            #expect(
                try server.client.request("POST", "/reports", headers: ["Content-Type": "application/json"], body: body)
                    .status == 204)
        }
        // A second chain, the genuine one: the client held an old set.
        let stale = Self.trustKitReport(chain: [pinned.pem], knownPins: [pin(1)])
        #expect(try server.client.request("POST", "/reports", body: stale).status == 204)

        let list = try server.client.request("GET", "/admin/reports?host=example.com", headers: server.auth)
        #expect(list.status == 200, "\(list.text)")
        let groups = try #require(try list.json()["groups"] as? [[String: Any]])
        #expect(groups.count == 2)
        let intercepted = try #require(groups.first { $0["leafPin"] as? String == served.pin })
        #expect(intercepted["count"] as? Int == 3, "identical reports share a row and a counter")
        #expect(intercepted["matchesCurrentPin"] as? Bool == false)
        #expect(intercepted["knownPins"] as? [String] == ["pin-sha256=\"\(pinned.pin)\"", "pin-sha256=\"\(pin(9))\""])
        #expect(intercepted["chain"] as? [String] == [served.pem])
        let genuine = try #require(groups.first { $0["leafPin"] as? String == pinned.pin })
        #expect(genuine["matchesCurrentPin"] as? Bool == true)

        let metrics = try server.client.request("GET", "/metrics", headers: server.auth).text
        #expect(metrics.contains(#"pinset_reports_total{host="example.com"} 4"#))
        #expect(try server.client.request("GET", "/admin/reports", headers: [:]).status == 401)
        #expect(try server.client.request("GET", "/admin/reports?since=yesterday", headers: server.auth).status == 400)
    }

    @Test func badReportsAre400() throws {
        let server = try TestServer()
        for body in [
            "{", "[]", #"{"hostname":"x.com"}"#,
            String(decoding: Self.trustKitReport(chain: ["not a cert"], knownPins: []), as: UTF8.self),
        ] {
            let response = try server.client.request("POST", "/reports", body: Array(body.utf8))
            #expect(response.status == 400, "\(body.prefix(40))")
            #expect(response.header("Content-Type") == "application/problem+json")
        }
        #expect(try server.client.request("GET", "/reports").status == 405)
    }

    @Test func reportsAreRateLimitedPerAddress() throws {
        let server = try TestServer(reports: ReportConfiguration(perAddressPerMinute: 3))
        let cert = try Self.certificate(in: server.directory, name: "leaf")
        let body = Self.trustKitReport(chain: [cert.pem], knownPins: [])
        for _ in 0..<3 { #expect(try server.client.request("POST", "/reports", body: body).status == 204) }
        let limited = try server.client.request("POST", "/reports", body: body)
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try limited.json()["type"] as? String == "urn:pinset:problem:rate-limited")
    }

    @Test func retentionDropsOldAndExcessRows() throws {
        let server = try TestServer()
        let store = try PinDatabase(path: server.configuration.databasePath)
        let reports = PinReportService(
            store: store, service: server.app!.service, configuration: ReportConfiguration(retention: 3600, maxRows: 2))
        let certs = try (0..<4).map { try Self.certificate(in: server.directory, name: "c\($0)") }
        let now = Date()
        _ = try reports.submit(
            json: Self.trustKitReport(chain: [certs[0].pem], knownPins: []), now: now.addingTimeInterval(-7200))
        _ = try reports.submit(json: Self.trustKitReport(chain: [certs[1].pem], knownPins: []), now: now)
        #expect(try reports.groups(host: nil, since: nil).map(\.leafPin) == [certs[1].pin], "older than the retention")
        _ = try reports.submit(
            json: Self.trustKitReport(chain: [certs[2].pem], knownPins: []), now: now.addingTimeInterval(1))
        _ = try reports.submit(
            json: Self.trustKitReport(chain: [certs[3].pem], knownPins: []), now: now.addingTimeInterval(2))
        #expect(
            try reports.groups(host: nil, since: nil).map(\.leafPin) == [certs[3].pin, certs[2].pin], "oldest out first"
        )
    }
}
