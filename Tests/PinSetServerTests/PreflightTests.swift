import Foundation
import PinSetAdminAPI
import PinSetCore
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// The pre-flight check of writes (issue 14) against real `openssl s_server` hosts on loopback, reached
/// through `--connect-to` mappings.
@Suite(.serialized, .blocking) struct PreflightTests {
    func server(
        _ host: TLSTestHost?, mode: PreflightMode = .warn, allowPrivate: Bool = false
    ) throws -> TestServer {
        let rules = host.map { [ConnectToRule($0.mapping)!] } ?? []
        return try TestServer(
            probes: ProbeConfiguration(preflight: mode, connectTo: rules, allowPrivate: allowPrivate, timeout: 3))
    }

    func body(_ pins: [(String, String)], enforce: Bool = true, force: Bool = false) -> String {
        let list = pins.map { #"{"sha256":"\#($0.0)","role":"\#($0.1)"}"# }.joined(separator: ",")
        return #"{"pins":[\#(list)],"enforce":\#(enforce),"force":\#(force)}"#
    }

    func preflight(_ response: TestHTTPClient.Response) throws -> [String: Any] {
        try response.json()["preflight"] as? [String: Any] ?? [:]
    }

    @Test func refusesASetTheLiveHostDoesNotMatchAndListsWhatItServes() throws {
        let host = try TLSTestHost()
        let server = try server(host)
        let response = try server.put(
            host.name, body([(try host.pin("rogue"), "current"), (try host.pin("backup"), "backup")]))
        #expect(response.status == 422, "\(response.text)")
        let json = try response.json()
        #expect(json["rule"] as? String == "would-lock-out")
        let addresses = try preflight(response)["addresses"] as? [[String: Any]] ?? []
        #expect(addresses.count == 1)
        #expect(addresses.first?["address"] as? String == "\(host.ip):\(host.port)")
        #expect(addresses.first?["matches"] as? Bool == false)
        let served = addresses.first?["served"] as? [[String: Any]] ?? []
        #expect(served.count == 2)  // leaf and test CA
        #expect(served.first?["spki"] as? String == (try host.pin("current")))
        #expect(try server.client.request("GET", "/pins/\(host.name)").status == 404)
    }

    @Test func acceptsASetThatMatchesAndSaysSo() throws {
        let host = try TLSTestHost()
        let server = try server(host)
        let response = try server.put(
            host.name, body([(try host.pin("current"), "current"), (try host.pin("backup"), "backup")]))
        #expect(response.status == 201, "\(response.text)")
        #expect(try preflight(response)["status"] as? String == "match")
        #expect(try preflight(response)["forced"] as? Bool == false)
        #expect(try server.client.request("GET", "/pins/\(host.name)").status == 200)
        // Issue 22 item 2: the pre-flight's probe is stored as the host's status (no monitor runs here).
        let status = try server.client.request("GET", "/admin/hosts/\(host.name)/status", headers: server.auth).json()
        #expect(status["state"] as? String == "ok")
        #expect(status["pinsMatch"] as? Bool == true)
    }

    @Test func forceOverridesTheRefusalAndTheHistoryRecordsIt() throws {
        let host = try TLSTestHost()
        let server = try server(host)
        let response = try server.put(
            host.name, body([(try host.pin("rogue"), "current"), (try host.pin("backup"), "backup")], force: true))
        #expect(response.status == 201, "\(response.text)")
        #expect(try preflight(response)["status"] as? String == "mismatch")
        #expect(try preflight(response)["forced"] as? Bool == true)
        let history = try server.client.request("GET", "/admin/hosts/\(host.name)/history", headers: server.auth)
        let versions = try history.json()["versions"] as? [[String: Any]] ?? []
        #expect(versions.first?["forced"] as? Bool == true)
        #expect(versions.first?["tokenName"] as? String == "tester")
    }

    @Test func removingThePinTheHostServesIsRefused() throws {
        let host = try TLSTestHost()
        let server = try server(host)
        let current = try host.pin("current")
        let created = try server.put(
            host.name,
            body([(current, "current"), (try host.pin("backup"), "backup"), (try host.pin("rogue"), "future")]))
        #expect(created.status == 201, "\(created.text)")
        let path = "/admin/hosts/\(host.name)/pins/\(Base64URL.encode(Base64.decode(current)!))"
        let removed = try server.client.request("DELETE", path, headers: server.auth)
        #expect(removed.status == 422, "\(removed.text)")
        #expect(try removed.json()["rule"] as? String == "would-lock-out")
        // force is true or false, nothing else (schemathesis sent junk and got 200).
        let junk = try server.client.request("DELETE", path + "?force=yes", headers: server.auth)
        #expect(junk.status == 400, "\(junk.text)")
        let forced = try server.client.request("DELETE", path + "?force=true", headers: server.auth)
        #expect(forced.status == 200, "\(forced.text)")
    }

    @Test func unreachableHostGoesThroughUnderWarn() throws {
        let host = try TLSTestHost()
        host.stop()
        let server = try server(host)
        let response = try server.put(
            host.name, body([(try host.pin("rogue"), "current"), (try host.pin("backup"), "backup")]))
        #expect(response.status == 201, "\(response.text)")
        #expect(try preflight(response)["status"] as? String == "unreachable")
        #expect((try preflight(response)["detail"] as? String)?.contains("cannot probe") == true)
        let status = try server.client.request("GET", "/admin/hosts/\(host.name)/status", headers: server.auth).json()
        #expect(status["state"] as? String == "warning")
        #expect(status["warnings"] as? [String] == ["unreachable"])
    }

    /// A write to a name that does not resolve waits for the probe's deadline at most (here 3 s), never for the
    /// resolver's own retries. (`.example` is not special to resolvers, unlike `.invalid`: DNS is asked.)
    @Test func aNameThatDoesNotResolveCostsAtMostTheDeadline() throws {
        let server = try server(nil)
        let started = Date()
        let response = try server.put("nothing.example", body([(pin(1), "current"), (pin(2), "backup")]))
        #expect(response.status == 201, "\(response.text)")
        #expect(Date().timeIntervalSince(started) < 3.2)
        #expect(try preflight(response)["status"] as? String == "unreachable")
    }

    @Test func unreachableHostIsRefusedUnderRequireUnlessForced() throws {
        let host = try TLSTestHost()
        host.stop()
        let server = try server(host, mode: .require)
        let pins = [(try host.pin("current"), "current"), (try host.pin("backup"), "backup")]
        let refused = try server.put(host.name, body(pins))
        #expect(refused.status == 422, "\(refused.text)")
        #expect(try refused.json()["rule"] as? String == "preflight-unreachable")
        let forced = try server.put(host.name, body(pins, force: true))
        #expect(forced.status == 201, "\(forced.text)")
        #expect(try preflight(forced)["forced"] as? Bool == true)
    }

    @Test func reportOnlySetIsProbedButNeverRefused() throws {
        let host = try TLSTestHost()
        let server = try server(host, mode: .require)
        let response = try server.put(
            host.name, body([(try host.pin("rogue"), "current"), (try host.pin("backup"), "backup")], enforce: false))
        #expect(response.status == 201, "\(response.text)")
        #expect(try preflight(response)["status"] as? String == "mismatch")
        #expect(try preflight(response)["forced"] as? Bool == false)
    }

    @Test func captureLeafPinsTheKeyTheHostServes() throws {
        let host = try TLSTestHost()
        let server = try server(host)
        let json = #"{"pins":[{"capture":"leaf"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        let response = try server.put(host.name, json)
        #expect(response.status == 201, "\(response.text)")
        let pins = try response.json()["pins"] as? [[String: Any]] ?? []
        #expect(pins.first?["sha256"] as? String == (try host.pin("current")))
        #expect(pins.first?["type"] as? String == "spki")
        let bad = try server.put(host.name, #"{"pins":[{"capture":"root"},{"sha256":"\#(pin(9))","role":"backup"}]}"#)
        #expect(bad.status == 400)
    }

    @Test func captureOfAnUnreachableHostFails() throws {
        let host = try TLSTestHost()
        host.stop()
        let server = try server(host, mode: .off)
        let json = #"{"pins":[{"capture":"leaf"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        let response = try server.put(host.name, json)
        #expect(response.status == 422, "\(response.text)")
        #expect(try response.json()["rule"] as? String == "capture-failed")
    }

    @Test func privateAddressIsRefusedWithoutProbeAllowPrivate() throws {
        let server = try server(nil)
        let response = try server.put("localhost", pinPair(7))
        #expect(response.status == 201, "\(response.text)")
        let addresses = try preflight(response)["addresses"] as? [[String: Any]] ?? []
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { ($0["error"] as? String)?.contains("is a loopback address") == true })

        let open = try self.server(nil, allowPrivate: true)
        let probed = try open.put("localhost", pinPair(7))
        let reached = try preflight(probed)["addresses"] as? [[String: Any]] ?? []
        #expect(reached.allSatisfy { ($0["error"] as? String)?.contains("is a loopback address") != true })
    }

    @Test func offModeDoesNotProbe() throws {
        let host = try TLSTestHost()
        let server = try server(host, mode: .off)
        let response = try server.put(
            host.name, body([(try host.pin("rogue"), "current"), (try host.pin("backup"), "backup")]))
        #expect(response.status == 201)
        #expect(try response.json()["preflight"] == nil)
    }
}

/// Pure parts: address ranges, mappings, statuses.
@Suite(.blocking) struct LockoutRulesTests {
    @Test func restrictedRanges() {
        #expect(AddressPolicy.restriction([127, 0, 0, 1]) == "loopback")
        #expect(AddressPolicy.restriction([10, 1, 2, 3]) == "private")
        #expect(AddressPolicy.restriction([172, 16, 0, 1]) == "private")
        #expect(AddressPolicy.restriction([172, 32, 0, 1]) == nil)
        #expect(AddressPolicy.restriction([192, 168, 1, 1]) == "private")
        #expect(AddressPolicy.restriction([169, 254, 169, 254]) == "link-local")
        #expect(AddressPolicy.restriction([93, 184, 216, 34]) == nil)
        var v6 = [UInt8](repeating: 0, count: 16)
        v6[15] = 1
        #expect(AddressPolicy.restriction(v6) == "loopback")
        #expect(AddressPolicy.restriction([0xfe, 0x80] + [UInt8](repeating: 0, count: 14)) == "link-local")
        #expect(AddressPolicy.restriction([0xfd, 0x00] + [UInt8](repeating: 0, count: 14)) == "private (unique local)")
        #expect(AddressPolicy.restriction([UInt8](repeating: 0, count: 10) + [0xff, 0xff, 10, 0, 0, 1]) == "private")
        #expect(AddressPolicy.restriction([0x26, 0x06] + [UInt8](repeating: 1, count: 14)) == nil)
    }

    @Test func connectToSyntax() {
        let rule = ConnectToRule("api.example.com:443:127.0.0.5:8443")
        #expect(rule?.host == "api.example.com" && rule?.port == 443)
        #expect(rule?.targetHost == "127.0.0.5" && rule?.targetPort == 8443)
        #expect(rule?.applies(to: "api.example.com", port: 443) == true)
        #expect(rule?.applies(to: "other.example.com", port: 443) == false)
        let any = ConnectToRule("::[::1]:")
        #expect(any?.host == nil && any?.targetHost == "::1" && any?.targetPort == nil)
        #expect(ConnectToRule("a:b:c") == nil)
        #expect(ConnectToRule("a:99999:c:1") == nil)
        // *.SUFFIX: every name under the suffix, not the suffix itself nor a name that merely ends with it.
        let fleet = ConnectToRule("*.mon.test:443:127.0.0.1:8443")
        #expect(fleet?.applies(to: "h1.mon.test", port: 443) == true)
        #expect(fleet?.applies(to: "a.b.mon.test", port: 443) == true)
        #expect(fleet?.applies(to: "mon.test", port: 443) == false)
        #expect(fleet?.applies(to: "xmon.test", port: 443) == false)
        #expect(fleet?.applies(to: "h1.mon.test", port: 8443) == false)
    }

    @Test func statusWarnings() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let served = [ServedCertificate(position: 0, subject: "CN=a", spki: pin(1), certificate: pin(2))]
        let soon = now.addingTimeInterval(86_400)
        let probe = AddressProbe(address: "192.0.2.1:443", served: served, leafNotAfter: soon)
        let pins = [
            Pin(sha256: pin(1), type: .spki, role: .current, expiresAt: soon),
            Pin(sha256: pin(3), type: .spki, role: .backup),
        ]
        let status = HostStatus.evaluate(
            host: "a.example", pins: pins, probes: [probe], now: now, expiryWarning: 21 * 86_400)
        #expect(status.state == .warning)
        #expect(status.warnings == [.certificateExpiresSoon, .onlyMatchingPinExpiresSoon])
        #expect(status.pinsMatch == true)
        let failing = HostStatus.evaluate(
            host: "a.example", pins: [pins[1]],
            probes: [probe, AddressProbe(address: "192.0.2.2:443", error: "timeout")],
            now: now, expiryWarning: 0)
        #expect(failing.state == .failing)
        #expect(failing.warnings == [.servedKeyNotPinned, .unreachable])
        #expect(failing.pinsMatch == false)
        let expired = HostStatus.evaluate(
            host: "a.example", pins: [Pin(sha256: pin(1), type: .spki, role: .current, expiresAt: now)],
            probes: [probe],
            now: now, expiryWarning: 0)
        #expect(expired.state == .failing)  // an expired pin matches nothing
    }
}
