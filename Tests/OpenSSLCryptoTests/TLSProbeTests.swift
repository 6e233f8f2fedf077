import Foundation
import TestSupport
import Testing

@testable import OpenSSLCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The OpenSSL TLS probe against real peers on loopback: `openssl s_server` (``TLSTestHost``), a listener that
/// never answers, one that resets the connection, and a closed port.
@Suite(.blocking) struct TLSProbeTests {
    /// Starts a Python TCP listener on 127.0.0.1 running `behaviour` on each accepted socket `c`; returns the
    /// process and its port.
    func listener(_ behaviour: String) throws -> (ChildProcess, Int) {
        let script = """
            import socket, struct, sys, time
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            print(s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept()
                \(behaviour)
            """
        // Debian's python3 directly (no version-manager shim between: kill must reach the listener itself),
        // and no inherited stderr (a survivor would hold the test runner's pipe open).
        let process = try ProcessRunner.start("/usr/bin/python3", ["-c", script], stdout: .pipe)
        let line = process.readStdout(chunks: .max)
        let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (process, port)
    }

    func stop(_ process: ChildProcess) {
        process.kill()
        process.waitUntilExit()
    }

    func address(_ port: Int) throws -> ProbeAddress {
        try AddressResolver.resolve("127.0.0.1", port: port)[0]
    }

    @Test func collectsTheWholeChainLeafFirstWithSNI() throws {
        let host = try TLSTestHost(name: "leaf.example", days: 2)
        try host.shell(
            "openssl x509 -in current.pem -outform DER -out leaf.der && openssl x509 -in ca.pem -outform DER -out ca.der"
        )
        let chain = try TLSProbe.presentedChain(
            to: try AddressResolver.resolve(host.ip, port: host.port)[0], serverName: "leaf.example", timeout: 2)
        let dir = host.directory
        let leaf = [UInt8](try Data(contentsOf: dir.appendingPathComponent("leaf.der")))
        let ca = [UInt8](try Data(contentsOf: dir.appendingPathComponent("ca.der")))
        #expect(chain.map(\.der) == [leaf, ca])
        #expect(CertificateParser.isSelfIssued(der: ca) && !CertificateParser.isSelfIssued(der: leaf))
        let notAfter = try #require(try CertificateParser.parse(leaf).first?.notAfter)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(notAfter > now + 86_400 && notAfter <= now + 2 * 86_400 + 60)
        // Described from the handshake's own decoding: the same parts as parsing the DER again.
        #expect(chain == (try CertificateParser.parse(leaf)) + (try CertificateParser.parse(ca)))
        #expect(chain[0].notAfter == notAfter && chain[0].subject.contains("CN=leaf.example"))
        #expect(try CertificateParser.parse(ca).first?.notAfter != nil)
    }

    @Test func probesOnManyThreadsAtOnceShareOneContext() throws {
        let host = try TLSTestHost(name: "leaf.example", days: 2)
        let address = try AddressResolver.resolve(host.ip, port: host.port)[0]
        let expected = try TLSProbe.presentedChain(to: address, serverName: "leaf.example", timeout: 5)
        let lock = NSLock()
        nonisolated(unsafe) var chains = [Result<[ParsedCertificate], TLSProbeError>]()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let result = Result { () throws(TLSProbeError) in
                try TLSProbe.presentedChain(to: address, serverName: "leaf.example", timeout: 5)
            }
            lock.withLock { chains.append(result) }
        }
        #expect(chains.count == 16)
        for chain in chains { #expect(try chain.get() == expected) }
    }

    @Test func aPeerThatNeverAnswersTimesOutOnTime() throws {
        let silent = try SilentListener()
        defer { withExtendedLifetime(silent) {} }
        let port = Int(silent.port)
        let started = Date()
        #expect(throws: TLSProbeError.self) {
            try TLSProbe.presentedChain(to: try address(port), serverName: "a.example", timeout: 1)
        }
        do {
            _ = try TLSProbe.presentedChain(to: try address(port), serverName: "a.example", timeout: 1)
        } catch let error as TLSProbeError {
            #expect(error.code == .handshakeTimeout)
            #expect(error.detail.contains("no TLS answer for a.example"), "\(error.detail)")
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// An address that drops SYNs (a full accept queue) times out at the TCP stage, with its own code: no name
    /// can be served there.
    @Test func anAddressThatAcceptsNoConnectionIsAConnectTimeout() throws {
        let silent = try SilentListener(stage: .tcp)
        defer { withExtendedLifetime(silent) {} }
        let started = Date()
        do {
            _ = try TLSProbe.presentedChain(to: try address(Int(silent.port)), serverName: "a.example", timeout: 1)
            Issue.record("a listener that drops SYNs gave a chain")
        } catch let error as TLSProbeError {
            #expect(error.code == .connectTimeout)
            #expect(error.detail.contains("not accepted in time"), "\(error.detail)")
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds >= 0.9 && seconds < 3, "\(seconds) s")
    }

    @Test func aPeerThatResetsIsAHandshakeFailureNotACrash() throws {
        let (process, port) = try listener(
            #"c.recv(10); c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()"#)
        defer { stop(process) }
        for _ in 0..<3 {
            do {
                _ = try TLSProbe.presentedChain(to: try address(port), serverName: "a.example", timeout: 2)
                Issue.record("a reset connection gave a chain")
            } catch let error as TLSProbeError {
                #expect(error.code == .handshakeFailed)
            }
        }
    }

    @Test func aClosedPortIsConnectFailed() throws {
        do {
            _ = try TLSProbe.presentedChain(to: try address(1), serverName: nil, timeout: 2)
            Issue.record("port 1 answered")
        } catch let error as TLSProbeError {
            #expect(error.code == .connectFailed)
        }
        #expect(throws: TLSProbeError.self) { try AddressResolver.resolve("nothing.invalid", port: 443) }
    }

    /// Issue 22 item 2: `getaddrinfo` has no timeout; the resolver gives up at its deadline whatever the lookup
    /// does. (No resolver here hangs on demand, so the blocking lookup is a stand-in that sleeps 3 s.)
    @Test func resolutionGivesUpAtItsDeadline() throws {
        let started = Date()
        do {
            _ = try AddressResolver.resolve(
                "slow.example", port: 443, limit: 8, deadline: 0.3,
                using: { _, _, _ throws(TLSProbeError) in
                    Thread.sleep(forTimeInterval: 3)
                    return []
                })
            Issue.record("a lookup that takes 3 s answered within 0.3 s")
        } catch {
            #expect(error.code == .dnsFailure)
            #expect(error.detail == "cannot resolve slow.example: no answer within 0.3 s")
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 0.3 && elapsed < 0.5, "\(elapsed) s")
        // A real lookup through the deadline path: an answer in time is passed through unchanged.
        let local = try AddressResolver.resolve("127.0.0.1", port: 443, deadline: 2)
        #expect(local.map(\.ip) == ["127.0.0.1"])
        #expect(throws: TLSProbeError.self) { try AddressResolver.resolve("nothing.invalid", port: 443, deadline: 2) }
    }

    /// RFC 6761: `.invalid` names fail at once and `localhost` names are loopback, without asking DNS; numeric
    /// addresses need no lookup either.
    @Test func specialUseNamesAreAnsweredWithoutALookup() throws {
        for name in ["nothing.invalid", "INVALID", "a.b.Invalid."] {
            let started = Date()
            do {
                _ = try AddressResolver.resolve(name, port: 443, deadline: 5)
                Issue.record("\(name) resolved")
            } catch {
                #expect(error.code == .dnsFailure)
                #expect(error.detail.contains("RFC 6761"), "\(error.detail)")
            }
            #expect(Date().timeIntervalSince(started) < 0.05)
        }
        let loopback = try AddressResolver.resolve("api.localhost", port: 8443, deadline: 5)
        #expect(loopback.map(\.description) == ["127.0.0.1:8443"])
        #expect(try AddressResolver.resolve("LocalHost.", port: 443).map(\.ip) == ["127.0.0.1"])
        #expect(try AddressResolver.resolve("::1", port: 443, deadline: 5).map(\.description) == ["[::1]:443"])
        // A name that merely ends with those letters is not special.
        #expect(try AddressResolver.withoutLookup("notinvalid", port: 443) == nil)
        #expect(try AddressResolver.withoutLookup("mylocalhost", port: 443) == nil)
    }
}
