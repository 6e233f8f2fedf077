import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI
import TestSupport
import Testing

@testable import PinSetProbe
@testable import PinSetServer

/// Issue 22 item 2: writes not bound by DNS or by hosts that do not answer. `.invalid` names fail without a
/// lookup (RFC 6761); an address that did not answer is reported unreachable at once for
/// ``ProbeConfiguration/unreachableTTL``, and probes of it in flight share one verdict; a host that answers is
/// probed afresh every time. Real server, real `openssl s_server`, a real listener that never answers.
@Suite(.serialized) struct UnansweredAddressTests {
    /// A server whose probes of `*.silent.test` go to `silent`, and of `host.name` (if any) to `host`.
    func server(
        silent: SilentListener, host: TLSTestHost? = nil, mode: PreflightMode = .warn, ttl: TimeInterval = 30
    ) throws -> TestServer {
        // The table is the process's: a verdict on an earlier listener that had this port must not count.
        UnansweredAddresses.shared.forget(
            ProbeAddress(ip: "127.0.0.1", port: Int(silent.port), bytes: [127, 0, 0, 1]))
        var rules = [ConnectToRule("*.silent.test:443:127.0.0.1:\(silent.port)")!]
        if let host { rules.append(ConnectToRule(host.mapping)!) }
        return try TestServer(
            probes: ProbeConfiguration(preflight: mode, connectTo: rules, timeout: 2, unreachableTTL: ttl))
    }

    /// The response to a `PUT` of `name`, and the seconds it took.
    func timedPut(_ server: TestServer, _ name: String, _ body: String = pinPair()) throws -> (
        TestHTTPClient.Response, Double
    ) {
        let started = Date()
        let response = try server.put(name, body)
        return (response, Date().timeIntervalSince(started))
    }

    func preflight(_ response: TestHTTPClient.Response) throws -> [String: Any] {
        try response.json()["preflight"] as? [String: Any] ?? [:]
    }

    @Test func anInvalidNameIsAnsweredWithoutAskingDNS() throws {
        let server = try TestServer(probes: ProbeConfiguration(preflight: .warn, timeout: 3))
        for index in 0..<5 {
            let (response, seconds) = try timedPut(server, "w\(index).nothing.invalid")
            #expect(response.status == 201, "\(response.text)")
            #expect(seconds < 0.5, "a write to an .invalid name took \(seconds) s")
            #expect(try preflight(response)["status"] as? String == "unreachable")
            #expect((try preflight(response)["detail"] as? String)?.contains("RFC 6761") == true)
        }
    }

    @Test func aSilentAddressIsWaitedForOnceThenReportedAtOnceUntilItsTTLEnds() throws {
        let silent = try SilentListener()
        let server = try server(silent: silent, ttl: 1)
        let (first, waited) = try timedPut(server, "a.silent.test")
        #expect(first.status == 201, "\(first.text)")
        #expect(waited >= 1.9 && waited < 2.6, "the first write took \(waited) s for a 2 s deadline")
        #expect(try preflight(first)["status"] as? String == "unreachable")

        // Another name mapped to the same address, within the TTL: no wait, and the answer says why.
        let (second, quick) = try timedPut(server, "b.silent.test", pinPair(2))
        #expect(second.status == 201, "\(second.text)")
        #expect(quick < 0.5, "a write to an address known to be silent took \(quick) s")
        let detail = try preflight(second)["detail"] as? String ?? ""
        #expect(detail.contains("did not answer") && detail.contains("not probed again until"), "\(detail)")
        // The stored status says so too.
        let status = try server.client.request("GET", "/admin/hosts/b.silent.test/status", headers: server.auth)
        let addresses = try status.json()["addresses"] as? [[String: Any]] ?? []
        #expect((addresses.first?["error"] as? String)?.contains("did not answer") == true, "\(status.text)")

        // After the TTL the address is probed again.
        Thread.sleep(forTimeInterval: 1.1)
        let (third, again) = try timedPut(server, "c.silent.test", pinPair(3))
        #expect(third.status == 201, "\(third.text)")
        #expect(again >= 1.9 && again < 2.6, "the write after the TTL took \(again) s")
    }

    @Test func concurrentProbesOfOneSilentAddressShareTheFirstVerdict() throws {
        let silent = try SilentListener()
        let server = try server(silent: silent)
        let first = Locked<Double?>(nil)
        let writer = Thread {
            let started = Date()
            _ = try? server.put("first.silent.test", pinPair(4))
            first.withLock { $0 = Date().timeIntervalSince(started) }
        }
        writer.start()
        Thread.sleep(forTimeInterval: 1)
        // Started 1 s after the first: it ends with the first one's verdict, not a full deadline later.
        let (second, seconds) = try timedPut(server, "second.silent.test", pinPair(5))
        #expect(second.status == 201, "\(second.text)")
        #expect(seconds < 1.6, "the second write took \(seconds) s; the first one's verdict came ~1 s after it began")
        #expect((try preflight(second)["detail"] as? String)?.contains("did not answer") == true)
        let deadline = Date().addingTimeInterval(5)
        while first.withLock({ $0 }) == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(first.withLock { $0 } != nil)
    }

    @Test func aHostThatAnswersIsProbedEveryTimeEvenRightAfterASilentOne() throws {
        let silent = try SilentListener()
        let host = try TLSTestHost()
        let server = try server(silent: silent, host: host)
        #expect(try server.put("x.silent.test", pinPair()).status == 201)
        let good =
            #"{"pins":[{"sha256":"\#(try host.pin("current"))"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        let created = try server.put(host.name, good)
        #expect(created.status == 201, "\(created.text)")
        #expect(try preflight(created)["status"] as? String == "match")
        // The host now serves another key: the very next write is probed again and refused.
        try host.serve(key: "rogue")
        let refused = try server.put(host.name, good)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(try refused.json()["rule"] as? String == "would-lock-out")
        // And the silent address is still answered at once meanwhile.
        let (quick, seconds) = try timedPut(server, "y.silent.test", pinPair(6))
        #expect(quick.status == 201 && seconds < 0.5, "\(seconds) s")
    }

    @Test func requireRefusesAWriteToASilentAddressAtOnce() throws {
        let silent = try SilentListener()
        let server = try server(silent: silent, mode: .require)
        let (first, waited) = try timedPut(server, "p.silent.test")
        #expect(first.status == 422 && waited < 2.6, "\(first.text)")
        #expect(try first.json()["rule"] as? String == "preflight-unreachable")
        let (second, quick) = try timedPut(server, "q.silent.test")
        #expect(second.status == 422 && quick < 0.5, "\(quick) s: \(second.text)")
        #expect(try second.json()["rule"] as? String == "preflight-unreachable")
        #expect((try second.json()["detail"] as? String)?.contains("did not answer") == true)
    }

    @Test func zeroTTLProbesEveryTime() throws {
        let silent = try SilentListener()
        let server = try server(silent: silent, ttl: 0)
        #expect(try server.put("m.silent.test", pinPair()).status == 201)
        let (_, seconds) = try timedPut(server, "n.silent.test", pinPair(2))
        #expect(seconds >= 1.9, "\(seconds) s: with a TTL of 0 nothing is remembered")
    }
}

/// The table's bound, without sockets.
@Suite struct UnansweredAddressTableTests {
    @Test func holdsAtMostItsCapacityDroppingTheOldest() {
        let table = UnansweredAddresses(capacity: 10)
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        for index in 0..<25 {
            let address = ProbeAddress(ip: "192.0.2.\(index)", port: 443, bytes: [192, 0, 2, UInt8(index)])
            table.remember(address, detail: "no answer", now: start.addingTimeInterval(Double(index)), ttl: 1000)
        }
        #expect(table.count <= 10)
        let newest = ProbeAddress(ip: "192.0.2.24", port: 443, bytes: [192, 0, 2, 24])
        let oldest = ProbeAddress(ip: "192.0.2.0", port: 443, bytes: [192, 0, 2, 0])
        let now = start.addingTimeInterval(30)
        #expect(table.begin(Attempt(), of: newest, ttl: 1000, now: now) != nil)
        #expect(table.begin(Attempt(), of: oldest, ttl: 1000, now: now) == nil)
        // A verdict older than the caller's TTL does not count.
        #expect(table.begin(Attempt(), of: newest, ttl: 5, now: now) == nil)
    }
}
