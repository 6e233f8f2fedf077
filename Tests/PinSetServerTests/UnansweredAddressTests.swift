import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI
import TestSupport
import Testing

@testable import PinSetProbe
@testable import PinSetServer

/// Issue 22 item 2: writes not bound by DNS or by hosts that do not answer. `.invalid` names fail without a
/// lookup (RFC 6761); an address that accepted no TCP connection is reported unreachable at once for every name
/// for ``ProbeConfiguration/unreachableTTL``, one that accepted it but did not answer TLS only for the same name
/// (a proxy routing by SNI may hang for one dead backend and answer the others), and probes in flight share a
/// verdict under the same rules; a host that answers is probed afresh every time. Real server, real
/// `openssl s_server`, real listeners that never answer (at the TCP or at the TLS stage).
@Suite(.serialized, .blocking) struct UnansweredAddressTests {
    /// A server whose probes of `*.silent.test` go to `silent` (if any), of `host.name` (if any) to `host`, and of
    /// each name of `extra` to 127.0.0.1 at its port.
    func server(
        silent: SilentListener?, host: TLSTestHost? = nil, mode: PreflightMode = .warn, ttl: TimeInterval = 30,
        extra: [String: Int] = [:]
    ) throws -> TestServer {
        // The table is the process's: a verdict on an earlier listener that had one of these ports must not count.
        for port in [silent.map { Int($0.port) }].compactMap({ $0 }) + extra.values {
            UnansweredAddresses.shared.forget(ProbeAddress(ip: "127.0.0.1", port: port, bytes: [127, 0, 0, 1]))
        }
        var rules = silent.map { [ConnectToRule("*.silent.test:443:127.0.0.1:\($0.port)")!] } ?? []
        if let host { rules.append(ConnectToRule(host.mapping)!) }
        rules += extra.map { ConnectToRule("\($0.key):443:127.0.0.1:\($0.value)")! }
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

    @Test func anAddressThatAcceptsNoConnectionIsWaitedForOnceThenReportedAtOnceForAnyNameUntilItsTTLEnds() throws {
        let silent = try SilentListener(stage: .tcp)
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
        #expect(
            detail.contains("did not accept a connection") && detail.contains("not accepted in time")
                && detail.contains("not probed again until"), "\(detail)")
        // The stored status says so too.
        let status = try server.client.request("GET", "/admin/hosts/b.silent.test/status", headers: server.auth)
        let addresses = try status.json()["addresses"] as? [[String: Any]] ?? []
        #expect(
            (addresses.first?["error"] as? String)?.contains("did not accept a connection") == true, "\(status.text)")

        // After the TTL the address is probed again.
        Thread.sleep(forTimeInterval: 1.1)
        let (third, again) = try timedPut(server, "c.silent.test", pinPair(3))
        #expect(third.status == 201, "\(third.text)")
        #expect(again >= 1.9 && again < 2.6, "the write after the TTL took \(again) s")
    }

    @Test func concurrentProbesOfAnAddressThatAcceptsNoConnectionShareTheFirstVerdictWhateverTheName() throws {
        let silent = try SilentListener(stage: .tcp)
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
        #expect((try preflight(second)["detail"] as? String)?.contains("did not accept a connection") == true)
        let deadline = Date().addingTimeInterval(5)
        while first.withLock({ $0 }) == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(first.withLock { $0 } != nil)
    }

    @Test func aHostThatAnswersIsProbedEveryTimeEvenRightAfterASilentOne() throws {
        let silent = try SilentListener(stage: .tcp)
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
        let silent = try SilentListener(stage: .tcp)
        let server = try server(silent: silent, mode: .require)
        let (first, waited) = try timedPut(server, "p.silent.test")
        #expect(first.status == 422 && waited < 2.6, "\(first.text)")
        #expect(try first.json()["rule"] as? String == "preflight-unreachable")
        let (second, quick) = try timedPut(server, "q.silent.test")
        #expect(second.status == 422 && quick < 0.5, "\(quick) s: \(second.text)")
        #expect(try second.json()["rule"] as? String == "preflight-unreachable")
        #expect((try second.json()["detail"] as? String)?.contains("did not accept a connection") == true)
    }

    @Test func zeroTTLProbesEveryTime() throws {
        let silent = try SilentListener(stage: .tcp)
        let server = try server(silent: silent, ttl: 0)
        #expect(try server.put("m.silent.test", pinPair()).status == 201)
        let (_, seconds) = try timedPut(server, "n.silent.test", pinPair(2))
        #expect(seconds >= 1.9, "\(seconds) s: with a TTL of 0 nothing is remembered")
    }

    /// An address that accepts the connection but does not answer TLS is remembered for that name only: the same
    /// name is answered at once, another name mapped to the same address is probed afresh (and waits again).
    @Test func anAddressSilentAtTheTLSStageIsRememberedForTheSameNameOnly() throws {
        let silent = try SilentListener(stage: .tls)
        let server = try server(silent: silent)
        let (first, waited) = try timedPut(server, "a.silent.test")
        #expect(first.status == 201 && waited >= 1.9 && waited < 2.6, "\(waited) s: \(first.text)")
        #expect((try preflight(first)["detail"] as? String)?.contains("no TLS answer for a.silent.test") == true)

        let (same, quick) = try timedPut(server, "a.silent.test", pinPair(2))
        #expect(same.status == 200 && quick < 0.5, "\(quick) s: \(same.text)")
        let detail = try preflight(same)["detail"] as? String ?? ""
        #expect(detail.contains("did not answer TLS for a.silent.test") && detail.contains("not probed again until"))

        let (other, again) = try timedPut(server, "b.silent.test", pinPair(3))
        #expect(other.status == 201, "\(other.text)")
        #expect(again >= 1.9 && again < 2.6, "another name at a TLS-silent address took \(again) s: probed afresh")
        #expect((try preflight(other)["detail"] as? String)?.contains("no TLS answer for b.silent.test") == true)
    }

    /// The review's case: one address, a proxy routing by SNI that hangs for a dead backend and passes the other
    /// name to a live host. Right after the dead name's write is remembered, a write for the live name that would
    /// lock its clients out is still probed, and refused.
    @Test func aLockOutBehindAProxyThatHangsForAnotherNameIsStillRefused() throws {
        let host = try TLSTestHost()
        let (proxy, port) = try sniProxy(hangingFor: "dead.sni.test", passing: host)
        defer {
            proxy.kill()
            proxy.waitUntilExit()
        }
        let server = try server(silent: nil, extra: ["dead.sni.test": port, host.name: port])
        let (dead, waited) = try timedPut(server, "dead.sni.test")
        #expect(dead.status == 201 && waited >= 1.9, "\(waited) s: \(dead.text)")
        #expect(try preflight(dead)["status"] as? String == "unreachable")
        let (deadAgain, quick) = try timedPut(server, "dead.sni.test", pinPair(2))
        let deadDetail = try preflight(deadAgain)["detail"] as? String ?? ""
        #expect(quick < 0.5 && deadDetail.contains("did not answer TLS for dead.sni.test"), "\(quick) s: \(deadDetail)")

        let current = try host.pin("current")
        let good = #"{"pins":[{"sha256":"\#(current)"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        let created = try server.put(host.name, good)
        #expect(created.status == 201, "\(created.text)")
        #expect(try preflight(created)["status"] as? String == "match")
        let lockout =
            #"{"pins":[{"sha256":"\#(try host.pin("rogue"))"},{"sha256":"\#(try host.pin("backup"))","role":"backup"}]}"#
        let refused = try server.put(host.name, lockout)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(try refused.json()["rule"] as? String == "would-lock-out")
        // Probed through the proxy: the refusal names the pin the live host serves there.
        let addresses = try preflight(refused)["addresses"] as? [[String: Any]] ?? []
        #expect(addresses.first?["address"] as? String == "127.0.0.1:\(port)")
        let served = addresses.first?["served"] as? [[String: Any]] ?? []
        #expect(served.first?["spki"] as? String == current, "\(refused.text)")
    }

    /// A TCP proxy on 127.0.0.1 that reads each ClientHello and, when it names `dead`, holds the connection
    /// without answering (a backend that hangs); otherwise it passes the connection to `live`. Returns the process
    /// and its port.
    func sniProxy(hangingFor dead: String, passing live: TLSTestHost) throws -> (ChildProcess, Int) {
        let script = """
            import socket, sys, threading
            dead, backend = sys.argv[1].encode(), (sys.argv[2], int(sys.argv[3]))
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
            print(s.getsockname()[1], flush=True)
            def pipe(a, b):
                try:
                    while (data := a.recv(65536)):
                        b.sendall(data)
                except OSError:
                    pass
                for end in (a, b):
                    try: end.shutdown(socket.SHUT_RDWR)
                    except OSError: pass
            def serve(c):
                hello = b""
                while len(hello) < 5 or len(hello) < 5 + int.from_bytes(hello[3:5], "big"):
                    data = c.recv(65536)
                    if not data: return c.close()
                    hello += data
                if dead in hello:
                    while c.recv(65536): pass
                    return c.close()
                b = socket.create_connection(backend, timeout=5); b.settimeout(None); b.sendall(hello)
                threading.Thread(target=pipe, args=(b, c), daemon=True).start()
                pipe(c, b)
            while True:
                c, _ = s.accept()
                threading.Thread(target=serve, args=(c,), daemon=True).start()
            """
        // Debian's python3 directly, so that kill reaches the proxy itself.
        let process = try ProcessRunner.start(
            "/usr/bin/python3", ["-c", script, dead, live.ip, String(live.port)], stdout: .pipe)
        let port = Int(process.readStdout(chunks: 10).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (process, port)
    }
}

/// The table's bound, without sockets.
@Suite(.blocking) struct UnansweredAddressTableTests {
    @Test func holdsAtMostItsCapacityDroppingTheOldest() {
        let table = UnansweredAddresses(capacity: 10)
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        for index in 0..<25 {
            let address = ProbeAddress(ip: "192.0.2.\(index)", port: 443, bytes: [192, 0, 2, UInt8(index)])
            table.remember(
                address, serverName: nil, detail: "no answer", now: start.addingTimeInterval(Double(index)), ttl: 1000)
        }
        #expect(table.count <= 10)
        let newest = ProbeAddress(ip: "192.0.2.24", port: 443, bytes: [192, 0, 2, 24])
        let oldest = ProbeAddress(ip: "192.0.2.0", port: 443, bytes: [192, 0, 2, 0])
        let now = start.addingTimeInterval(30)
        #expect(table.begin(Attempt(newest, serverName: "a.example"), ttl: 1000, now: now) != nil)
        #expect(table.begin(Attempt(oldest, serverName: "a.example"), ttl: 1000, now: now) == nil)
        // A verdict older than the caller's TTL does not count.
        #expect(table.begin(Attempt(newest, serverName: "a.example"), ttl: 5, now: now) == nil)
    }

    /// Silence at the TLS stage covers one name (whatever its case), at the TCP stage every name; probes in
    /// flight are settled under the same rules.
    @Test func aVerdictCoversTheNamesOfItsStage() {
        let table = UnansweredAddresses()
        let address = ProbeAddress(ip: "192.0.2.7", port: 443, bytes: [192, 0, 2, 7])
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let a = Attempt(address, serverName: "a.example")
        let b = Attempt(address, serverName: "b.example")
        let a2 = Attempt(address, serverName: "A.Example")
        for attempt in [a, b, a2] { #expect(table.begin(attempt, ttl: 30, now: now) == nil) }

        table.remember(address, serverName: "a.example", detail: "no TLS answer", now: now, ttl: 30)
        #expect(a.isSettled && a2.isSettled && !b.isSettled)
        #expect(table.begin(Attempt(address, serverName: "a.example"), ttl: 30, now: now)?.serverName == "a.example")
        #expect(table.begin(Attempt(address, serverName: "b.example"), ttl: 30, now: now) == nil)
        let other = ProbeAddress(ip: "192.0.2.8", port: 443, bytes: [192, 0, 2, 8])
        #expect(table.begin(Attempt(other, serverName: "a.example"), ttl: 30, now: now) == nil)

        table.remember(address, serverName: nil, detail: "not accepted", now: now, ttl: 30)
        #expect(b.isSettled)
        let verdict = table.begin(Attempt(address, serverName: "c.example"), ttl: 30, now: now)
        #expect(verdict != nil && verdict?.serverName == nil)
        let report = verdict?.report(address, ttl: 30, now: now.addingTimeInterval(3)).error ?? ""
        #expect(report.hasPrefix("did not accept a connection 3 s ago (not accepted)"), "\(report)")

        table.forget(address)
        #expect(table.begin(Attempt(address, serverName: "a.example"), ttl: 30, now: now) == nil)
    }
}
