import Foundation
import OpenSSLCrypto
import PinSetCore
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// `pinset log watch` over a log's files as `pinset export` lays them out (`log/checkpoint`, `log/tile/…`), made
/// by the server's own `LogState`: it reports the watched hosts' documents once each, goes on from its state file,
/// and reports a fork with both notes.
@Suite(.blocking) struct LogWatchCommandTests {
    /// A pin document as the server writes it (the signature is not checked by a monitor).
    static func document(_ host: String, _ version: Int, kid: String = "kid-1") -> String {
        let set = PinSet(
            host: host, version: version, issuedAt: Date(timeIntervalSince1970: 1_790_000_000),
            expiresAt: Date(timeIntervalSince1970: 1_790_086_400), enforce: false, pins: [])
        return String(
            decoding: SignedDocument(
                protected: Base64URL.encode(SignedDocument.protectedHeader(kid: kid)),
                payload: Base64URL.encode(set.encodedJSON()),
                signature: Base64URL.encode([UInt8](repeating: 7, count: 64))
            ).serialized, as: UTF8.self)
    }

    /// A trust document signed (not validly: a monitor does not check) by root keys `kids`.
    static func trustDocument(_ version: Int, kids: [String]) -> String {
        let payload = TrustPayload(
            version: version, issuedAt: Date(timeIntervalSince1970: 1_790_000_000),
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000), rootKeys: [], rootThreshold: 1, signingKeys: [])
        let signatures = kids.map {
            TrustSignature(
                protected: Base64URL.encode(TrustDocument.protectedHeader(kid: $0)),
                signature: Base64URL.encode([UInt8](repeating: 9, count: 64)))
        }
        return String(
            decoding: TrustDocument(payload: Base64URL.encode(payload.encodedJSON()), signatures: signatures)
                .serialized,
            as: UTF8.self)
    }

    /// Writes every file the log serves under `root/log/`.
    static func mirror(_ server: LogServer, to root: URL) throws {
        for file in try server.files(changedSince: 0) {
            let url = root.appendingPathComponent("log/" + file.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.body).write(to: url)
        }
    }

    @Test func watchedHostsAreReportedOnceAndAForkIsReportedWithBothNotes() throws {
        let directory = try makeTemporaryDirectory("pinset-logwatch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try Ed25519SigningKey.generate()
        let vkey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key.description
        let honest = try LogServer(logKey: logKey, witnesses: [])
        // 300 entries: a full tile and a partial one, so bundles of both kinds are read.
        try honest.write(
            (0..<300).map { Self.document($0 % 3 == 0 ? "api.example.com" : "other\($0).example", $0 + 1) })
        _ = try honest.sign()
        let root = directory.appendingPathComponent("mirror")
        try Self.mirror(honest, to: root)
        let state = directory.appendingPathComponent("state").path
        let hooked = directory.appendingPathComponent("hooked").path
        let hook = "printf '%s %s %s\\n' \"$PINSET_LOG_EVENT\" \"$PINSET_LOG_HOST\" \"$(wc -c)\" >> \(hooked)"
        let watch = [
            "log", "watch", root.path, "--hosts", "*.example.com", "--hosts", "nothing.example", "--log-key", vkey,
            "--state", state, "--once", "--exec", hook,
        ]

        let first = try WitnessProcessTests.run(watch.map { $0 == "*.example.com" ? "api.example.com" : $0 })
        #expect(first.status == 0, "\(first.stderr)")
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.count == 100)
        #expect(lines.first == "0 api.example.com 1 kid-1 2026-09-21T14:13:20Z")
        #expect(lines.last == "297 api.example.com 298 kid-1 2026-09-21T14:13:20Z")
        let hookLines = try String(contentsOfFile: hooked, encoding: .utf8).split(separator: "\n")
        #expect(hookLines.count == 100 && hookLines[0].hasPrefix("document api.example.com "))
        #expect(Int(hookLines[0].split(separator: " ")[2]) == Self.document("api.example.com", 1).utf8.count)

        let older = directory.appendingPathComponent("older")
        try Self.mirror(honest, to: older)
        // Nothing new: nothing reported. Then two more entries: only those, from the state file.
        #expect(try WitnessProcessTests.run(watch).stdout == "")
        try honest.write([Self.document("www.example.com", 9), Self.document("api.example.org", 2)])
        _ = try honest.sign()
        try Self.mirror(honest, to: root)
        let second = try WitnessProcessTests.run(watch)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "300 www.example.com 9 kid-1 2026-09-21T14:13:20Z\n")

        // A stale copy (a CDN's cache) serves an older checkpoint: said, not a fork, nothing moves back.
        let stale = try WitnessProcessTests.run(watch.map { $0 == root.path ? older.path : $0 })
        #expect(
            stale.status == 0 && stale.stdout == "" && stale.stderr.contains("older than the 302 held"),
            "\(stale.stderr)")

        // A rogue server with the same log key and another history of the same size: a fork, both notes shown.
        let rogue = try LogServer(logKey: logKey, witnesses: [])
        try rogue.write(
            (0..<301).map { Self.document("api.example.com", $0 + 1, kid: "rogue") } + [Self.document("x.example", 1)])
        _ = try rogue.sign()
        let rogueRoot = directory.appendingPathComponent("rogue")
        try Self.mirror(rogue, to: rogueRoot)
        let forked = try WitnessProcessTests.run(watch.map { $0 == root.path ? rogueRoot.path : $0 })
        #expect(forked.status == 3, "\(forked.stderr)")
        #expect(forked.stdout == "")
        #expect(forked.stderr.contains("FORK"))
        #expect(forked.stderr.contains(String(decoding: honest.log.checkpoint!.bytes, as: UTF8.self)))
        #expect(forked.stderr.contains(String(decoding: rogue.log.checkpoint!.bytes, as: UTF8.self)))
        #expect(
            try String(contentsOfFile: hooked, encoding: .utf8).hasSuffix(
                "fork  \(honest.log.checkpoint!.bytes.count + 1 + rogue.log.checkpoint!.bytes.count)\n"))
        // The state still holds the honest checkpoint: the fork is reported again, never taken.
        #expect(try WitnessProcessTests.run(watch.map { $0 == root.path ? rogueRoot.path : $0 }).status == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == Data(honest.log.checkpoint!.bytes))

        // A larger rogue log that does not extend the honest one: a fork found by the consistency proof.
        try rogue.write((0..<40).map { Self.document("y\($0).example", 1) })
        _ = try rogue.sign()
        try Self.mirror(rogue, to: rogueRoot)
        let larger = try WitnessProcessTests.run(watch.map { $0 == root.path ? rogueRoot.path : $0 })
        #expect(larger.status == 3 && larger.stderr.contains("FORK"), "\(larger.stderr)")

        // A wrong log key refuses the checkpoint.
        let other = try NoteSigner(name: LogServer.origin, type: .ed25519, key: Ed25519SigningKey.generate()).key
        let wrong = try WitnessProcessTests.run(watch.map { $0 == vkey ? other.description : $0 })
        #expect(wrong.status == 1 && wrong.stderr.contains("unsigned"), "\(wrong.stderr)")
    }

    @Test func anEntryTheCheckpointDoesNotIncludeIsRefused() throws {
        let directory = try makeTemporaryDirectory("pinset-logwatch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try Ed25519SigningKey.generate()
        let vkey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key.description
        let server = try LogServer(logKey: logKey, witnesses: [])
        try server.write((0..<5).map { Self.document("h\($0).example", 1) })
        _ = try server.sign()
        try Self.mirror(server, to: directory)
        // A mirror that swaps one entry in the bundle (the tiles and checkpoint unchanged).
        let bundle = directory.appendingPathComponent("log/tile/entries/000.p/5")
        var entries = try EntryBundle.decode([UInt8](Data(contentsOf: bundle)))
        entries[2] = Array(Self.document("h2.example", 2).utf8)
        try Data(EntryBundle.encode(entries)).write(to: bundle)
        let result = try WitnessProcessTests.run(
            ["log", "watch", directory.path, "--hosts", "*", "--log-key", vkey, "--once"])
        #expect(result.status == 1 && result.stderr.contains("entry 2 served is not the one"), "\(result.stderr)")

        // A mirror that swaps an entry and its leaf hash in the tile, consistently: the tile no longer leads to the
        // checkpoint's root.
        let tile = directory.appendingPathComponent("log/tile/0/000.p/5")
        var hashes = [UInt8](try Data(contentsOf: tile))
        hashes.replaceSubrange(64..<96, with: hasher.leafHash(entries[2]))
        try Data(hashes).write(to: tile)
        let swapped = try WitnessProcessTests.run(
            ["log", "watch", directory.path, "--hosts", "*", "--log-key", vkey, "--once"])
        #expect(swapped.status == 1 && swapped.stderr.contains("entry 4 served is not the one"), "\(swapped.stderr)")
    }

    /// A real HTTP receiver (Python's http.server on an ephemeral loopback port) that appends each POST body
    /// as one line to `file`.
    static func webhookReceiver(_ file: URL) throws -> (ChildProcess, String) {
        let script = """
            import http.server, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers["Content-Length"]))
                    with open(sys.argv[1], "ab") as out: out.write(body + b"\\n")
                    self.send_response(204); self.end_headers()
                def log_message(self, *args): pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_port, flush=True)
            server.serve_forever()
            """
        let process = try ProcessRunner.start("python3", ["-c", script, file.path], stdout: .pipe)
        let port = process.readStdout().trimmingCharacters(in: .whitespacesAndNewlines)
        return (process, "http://127.0.0.1:\(port)/hook")
    }

    @Test func theWebhookGetsEachDocumentAndTheFork() throws {
        let directory = try makeTemporaryDirectory("pinset-logwatch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let posted = directory.appendingPathComponent("posted")
        let (receiver, hook) = try Self.webhookReceiver(posted)
        defer {
            // SIGKILL: the test process's children inherit SIGTERM ignored, and Python keeps it so.
            receiver.kill()
            receiver.waitUntilExit()
        }
        let logKey = try Ed25519SigningKey.generate()
        let vkey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key.description
        let honest = try LogServer(logKey: logKey, witnesses: [])
        try honest.write([Self.document("a.example.com", 1), Self.document("b.example", 1)])
        _ = try honest.sign()
        // Trust documents and entries that are no document are reported whatever the hosts.
        let bystander = try LogServer(logKey: logKey, witnesses: [])
        try bystander.write([Self.trustDocument(3, kids: ["r1", "r2"]), "not a document"])
        _ = try bystander.sign()
        let bystanderRoot = directory.appendingPathComponent("bystander")
        try Self.mirror(bystander, to: bystanderRoot)
        let always = try WitnessProcessTests.run([
            "log", "watch", bystanderRoot.path, "--hosts", "nothing.example", "--log-key", vkey, "--once",
        ])
        #expect(always.stdout == "0 (trust) 3 r1,r2 2026-09-21T14:13:20Z\n1 (unreadable) 0 - -\n", "\(always.stderr)")
        let root = directory.appendingPathComponent("honest")
        try Self.mirror(honest, to: root)
        let state = directory.appendingPathComponent("state").path
        let watch = [
            "log", "watch", root.path, "--hosts", "*.example.com", "--log-key", vkey, "--state", state,
            "--once", "--webhook", hook,
        ]
        #expect(try WitnessProcessTests.run(watch).status == 0)
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: posted)) as? [String: Any])
        #expect(document["event"] as? String == "document" && document["host"] as? String == "a.example.com")
        #expect(
            document["index"] as? Int == 0 && document["version"] as? Int == 1 && document["kid"] as? String == "kid-1")
        #expect(document["origin"] as? String == LogServer.origin)
        #expect(document["document"] as? String == Self.document("a.example.com", 1))

        // A webhook that does not answer is warned about, without its path (it may hold a secret), and the
        // watch goes on.
        let down = try WitnessProcessTests.run([
            "log", "watch", root.path, "--hosts", "*.example.com", "--log-key", vkey, "--once", "--webhook",
            "http://127.0.0.1:1/hooks/s3cr3t",
        ])
        #expect(down.status == 0 && down.stdout.hasPrefix("0 a.example.com 1 "), "\(down.stderr)")
        #expect(down.stderr.contains("webhook http://127.0.0.1/… failed") && !down.stderr.contains("s3cr3t"))

        let rogue = try LogServer(logKey: logKey, witnesses: [])
        try rogue.write([Self.document("a.example.com", 1), Self.document("a.example.com", 2, kid: "rogue")])
        _ = try rogue.sign()
        let rogueRoot = directory.appendingPathComponent("rogue")
        try Self.mirror(rogue, to: rogueRoot)
        #expect(try WitnessProcessTests.run(watch.map { $0 == root.path ? rogueRoot.path : $0 }).status == 3)
        let lines = try String(contentsOf: posted, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let fork = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(fork["event"] as? String == "fork")
        #expect(fork["held"] as? String == String(decoding: honest.log.checkpoint!.bytes, as: UTF8.self))
        #expect(fork["new"] as? String == String(decoding: rogue.log.checkpoint!.bytes, as: UTF8.self))
    }

    @Test func aPolicyChecksTheWitnessesAndAShortQuorumIsOnlyWarnedAbout() throws {
        let directory = try makeTemporaryDirectory("pinset-logwatch")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, witness) = try LogServer.withOneWitness(in: directory)
        let logVKey = server.signer.key
        #expect(try server.publish([Self.document("a.example.com", 1)]) == [200])
        let root = directory.appendingPathComponent("mirror")
        try Self.mirror(server, to: root)
        let w2 = try NoteSigner(name: "w2.example", type: .cosignature, key: Ed25519SigningKey.generate()).key
        let policy = directory.appendingPathComponent("policy")
        try Data("log \(logVKey)\nwitness w1 \(witness.verifierKey)\nquorum w1\n".utf8).write(to: policy)
        let both = directory.appendingPathComponent("both")
        try Data(
            "log \(logVKey)\nwitness w1 \(witness.verifierKey)\nwitness w2 \(w2)\ngroup g all w1 w2\nquorum g\n".utf8
        ).write(to: both)
        let watch = ["log", "watch", root.path, "--hosts", "a.example.com", "--once", "--policy"]
        let met = try WitnessProcessTests.run(watch + [policy.path])
        #expect(met.status == 0 && met.stdout.hasPrefix("0 a.example.com 1 ") && met.stderr == "", "\(met.stderr)")
        let short = try WitnessProcessTests.run(watch + [both.path])
        #expect(short.status == 0 && short.stdout.hasPrefix("0 a.example.com 1 "))
        #expect(short.stderr.contains("short of the quorum g"), "\(short.stderr)")
    }
}
