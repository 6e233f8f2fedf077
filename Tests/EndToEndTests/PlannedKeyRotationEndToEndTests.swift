import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetRules
import TestSupport
import Testing

/// Issue 24 item 7 (PROTOCOL §6.3, planned rotation), all real: `pinset serve --key A --next-key B` with root
/// keys and a transparency log, trust documents made by `pinset trust sign`, the client's trust walk and document
/// checks. Pushing a trust document that names B and not A switches the server to B and re-signs every document
/// before the answer, so a client that updates its trust and then fetches a set never meets a gap.
@Suite struct PlannedKeyRotationEndToEndTests {
    static let binary = TransparencyLogEndToEndTests.binary
    static let hosts = ["a.example.com", "b.example.com", "c.example.com"]

    /// A `pinset serve --dev` process; its URL from the banner, its admin token from the first start's banner.
    final class Server {
        let process: ChildProcess
        let url: URL

        init(_ arguments: [String], environment: [String: String?] = [:]) throws {
            process = try ProcessRunner.start(
                PlannedKeyRotationEndToEndTests.binary, ["serve", "--dev", "--port", "0"] + arguments,
                environment: environment, stdout: .collect, stderr: .collect)
            var found: URL?
            for _ in 0..<200 where found == nil {
                let first = process.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
                if let start = first.range(of: "http://") { found = URL(string: String(first[start.lowerBound...])) }
                if found == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            guard let found else {
                process.terminate()
                throw TransparencyLogEndToEndTests.NoBanner(lines: [process.stdoutText, process.stderrText])
            }
            url = found
        }

        /// The admin token printed on the first start (the line after "admin token").
        func token() -> String? {
            for _ in 0..<100 {
                let lines = process.stdoutText.split(separator: "\n").map(String.init)
                if let label = lines.firstIndex(where: { $0.contains("admin token") }), label + 1 < lines.count {
                    return lines[label + 1].trimmingCharacters(in: .whitespaces)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return nil
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }

        func send(_ method: String, _ path: String, token: String, body: [UInt8]) throws -> (Int, Data) {
            let answer = try TestHTTPClient(url: url.absoluteString).request(
                method, path, headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: body)
            return (answer.status, Data(answer.body))
        }

        /// `GET path`: the body and the `ETag`.
        func get(_ path: String) throws -> (status: Int, body: [UInt8], etag: String?) {
            let answer = try TestHTTPClient(url: url.absoluteString).request("GET", path)
            return (answer.status, answer.body, answer.header("ETag"))
        }
    }

    @Test func aTrustDocumentNamingTheNextKeySwitchesSigningWithoutAGap() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-e2e-nextkey-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        for name in ["root.pem", "a.pem", "b.pem", "c.pem", "log.pem"] {
            try ProcessRunner.text("openssl", "genpkey", "-algorithm", "ed25519", "-out", path(name))
            try ProcessRunner.text("chmod", "600", path(name))
        }
        try ProcessRunner.text("openssl", "pkey", "-in", path("root.pem"), "-pubout", "-out", path("root.pub"))
        func trustSign(_ version: Int, delegating key: String) throws -> [UInt8] {
            let out = path("trust-\(version)-\(key).json")
            try ProcessRunner.checked(
                Self.binary,
                [
                    "trust", "sign", "--root-key", path("root.pem"), "--signing-key-pub", path(key), "--log-key-pub",
                    path("log.pem"), "--version", "\(version)", "--out", out,
                ])
            return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        let kidA = try Ed25519SigningKey.load(pemFile: path("a.pem")).kid
        let kidB = try Ed25519SigningKey.load(pemFile: path("b.pem")).kid
        let common = ["--db", path("pinset.sqlite"), "--root-pub", path("root.pub"), "--log-key", path("log.pem")]

        // Signing with A, B ready beside it (PINSET_NEXT_KEY); trust v1 (root → A) and three hosts.
        var server: Server? = try Server(
            common + ["--key", path("a.pem")], environment: ["PINSET_NEXT_KEY": path("b.pem")])
        let token = try #require(server!.token())
        let v1 = try trustSign(1, delegating: "a.pem")
        #expect(TrustRules.unverifiedPayload(v1)?.logKeys?.count == 1)
        #expect(try server!.send("PUT", "/admin/trust", token: token, body: v1).0 == 201)
        for host in Self.hosts {
            let pins = (0..<2).map { _ in Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }
            let body = #"{"pins":[{"sha256":"\#(pins[0])","role":"current"},{"sha256":"\#(pins[1])","role":"backup"}]}"#
            #expect(
                try server!.send("PUT", "/admin/hosts/\(host)", token: token, body: Array(body.utf8)).0 == 201)
        }

        // A client that ships the root key, walked to v1, holds every set signed by A.
        let rootPEM = try String(contentsOfFile: path("root.pub"), encoding: .utf8)
        let store = try TrustStore(rootKeys: [TrustedKey(spkiPEM: rootPEM)], threshold: 1)
        let walker = TrustDocumentVerifier()
        let atV1 = try walker.walk([v1], from: store.shipped, now: Date()).get()
        #expect(store.advance(to: atV1) != nil)
        let manager = PinTrustManager(trustStore: store)
        for host in Self.hosts {
            let document = try server!.get("/pins/\(host)")
            #expect(try manager.accept(document.body, for: host, now: Date()).get().kid == kidA)
        }

        // The real updater of an app that ships the root key: it walks to v1 by itself and holds every set.
        let appManager = PinTrustManager(
            trustStore: try TrustStore(rootKeys: [TrustedKey(spkiPEM: rootPEM)], threshold: 1))
        let updater = PinSetUpdater(
            configuration: .init(server: server!.url, hosts: Self.hosts), trustManager: appManager,
            transport: URLSessionTransport(timeout: 5))
        for event in await updater.refreshNow() {
            guard case .updated = event else {
                Issue.record("before the rotation: \(event)")
                continue
            }
        }
        #expect(Self.hosts.allSatisfy { appManager.document(for: $0)?.kid == kidA })

        // A trust document naming neither A nor B is refused with the rule, naming both.
        let (refused, problem) = try server!.send(
            "PUT", "/admin/trust", token: token, body: try trustSign(2, delegating: "c.pem"))
        #expect(refused == 422)
        let detail = String(decoding: problem, as: UTF8.self)
        #expect(detail.contains(kidA) && detail.contains(kidB))

        // v2 names B only: accepted, and the answer comes once every document is re-signed with B and served.
        let v2 = try trustSign(2, delegating: "b.pem")
        let (status, answer) = try server!.send("PUT", "/admin/trust", token: token, body: v2)
        #expect(status == 201)
        let outcome = try JSONSerialization.jsonObject(with: answer) as? [String: Any]
        #expect(outcome?["rotatedTo"] as? String == kidB)
        #expect(outcome?["resigned"] as? Int == Self.hosts.count)
        #expect((outcome?["note"] as? String)?.contains("--key") == true)

        // Right after the answer: the client updates its trust from the server, then fetches every set. Each one
        // verifies under v2, signed by B, and has its proof with the same ETag; no set in force is ever lost.
        let served = try server!.get("/trust")
        let walked = try walker.walk(
            [try server!.get("/trust/1").body, try server!.get("/trust/2").body], from: store.shipped,
            now: Date()
        ).get()
        #expect(walked.version == 2 && served.body == v2)
        #expect(store.advance(to: walked) != nil)
        for host in Self.hosts {
            let document = try server!.get("/pins/\(host)")
            #expect(try manager.accept(document.body, for: host, now: Date()).get().kid == kidB)
            #expect(manager.pinSet(for: host) != nil)
            let proof = try server!.get("/pins/\(host)/proof")
            // PROTOCOL §7.3 (issue 35): the proof's ETag is its own, not the document's.
            #expect(proof.status == 200 && proof.etag != nil && proof.etag != document.etag)
        }

        // The app's updater, right after the answer: a set signed by B sends it to /trust, it walks to v2, and
        // every host moves to B; no set in force is lost on the way.
        for event in await updater.refreshNow() {
            if case .fetchFailed = event { Issue.record("after the rotation: \(event)") }
        }
        #expect(appManager.trustStore?.current.version == 2)
        for host in Self.hosts {
            #expect(appManager.document(for: host)?.kid == kidB, "\(host)")
            #expect(appManager.pinSet(for: host) != nil)
        }

        // Restarted with B as --key: delegated, the documents unchanged. Restarted with the old key A and v2
        // stored: it still starts (§6.3, how a leaked key is replaced), with the warning.
        server = nil
        server = try Server(common + ["--key", path("b.pem")])
        let afterRestart = try server!.get("/pins/\(Self.hosts[0])")
        #expect(try manager.accept(afterRestart.body, for: Self.hosts[0], now: Date()).get().kid == kidB)
        server = nil
        server = try Server(common + ["--key", path("a.pem")])
        var warned = false
        for _ in 0..<100 where !warned {
            warned = server!.process.stderrText.contains("does not list this server's signing key")
            if !warned { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(warned)
        #expect(try server!.get("/trust").body == v2)
        // Its re-signer (whose first pass ran at start, before the warning) leaves the documents signed by B, the
        // key v2 delegates: re-signed with A, every root-key client would refuse them.
        for host in Self.hosts {
            let served = try server!.get("/pins/\(host)")
            #expect(try manager.accept(served.body, for: host, now: Date()).get().kid == kidB, "\(host)")
        }
    }
}
