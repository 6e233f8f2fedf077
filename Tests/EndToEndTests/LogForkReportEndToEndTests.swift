import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetLogServer
import PinSetServer
import TestSupport
import Testing
import TransparencyLog

/// Issue 24: the server's `POST /reports` takes the client's log-fork report (docs/CLIENT-LOG.md) beside TrustKit
/// reports. The real client's reporter posts a `LogForkReport` of two checkpoints signed by one log key; the
/// server stores and counts it and lists it in `GET /admin/reports`; bad bodies get a problem+json `400`.
@Suite struct LogForkReportEndToEndTests {
    static let origin = "pins.test/log"

    /// Two checkpoints of one size with other roots, both signed by the same log key (`key`, default a new one): a
    /// fork.
    static func fork(key: Ed25519SigningKey? = nil) throws -> LogFork {
        let signer = try NoteSigner(name: origin, type: .ed25519, key: key ?? Ed25519SigningKey.generate())
        func note(_ byte: UInt8) throws -> SignedNote {
            let text = try Checkpoint(origin: origin, size: 5, rootHash: [UInt8](repeating: byte, count: 32)).text
            return SignedNote(text: text, signatures: [signer.signature(of: text, timestamp: 0)])
        }
        return LogFork(kept: try note(1), refused: try note(2))
    }

    func post(_ server: TestServer, _ body: [UInt8]) async throws -> (Int, String?, String) {
        let answer = try server.client.request(
            "POST", "/reports", headers: ["Content-Type": "application/json"], body: body)
        return (answer.status, answer.header("Content-Type"), answer.text)
    }

    /// Turns the log on for `server` (origin ``origin``) and returns its log key.
    static func enableLog(_ server: TestServer) throws -> Ed25519SigningKey {
        let keyPath = server.directory.appendingPathComponent("log-key.pem").path
        let key = try Ed25519SigningKey.generate()
        try key.write(toNewFile: keyPath)
        server.stop()
        server.configuration.log = LogConfiguration(keyPath: keyPath, origin: origin)
        try server.start()
        return key
    }

    @Test func aClientsForkReportIsStoredCountedAndListed() async throws {
        let server = try TestServer(refreshInterval: 1)
        let logKey = try Self.enableLog(server)
        let report = LogForkReport(try Self.fork(key: logKey), document: "/pins/api.example.com", at: Date())
        // The real reporter, twice (a second reporter: one reporter sends the same fork once a day).
        let reporters = [PinFailureReporter(), PinFailureReporter()]
        for reporter in reporters {
            let outcome = await reporter.submit(
                report, pinServerReports: server.baseURL.appendingPathComponent("reports")
            ).value
            #expect(outcome == .sent(status: 204))
        }
        let data = Data(try server.client.request("GET", "/admin/reports", headers: server.auth).body)
        let forks = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["logForks"] as? [[String: Any]]
        let entry = try #require(forks?.first)
        #expect(forks?.count == 1)
        #expect(entry["host"] as? String == "api.example.com")
        #expect(entry["document"] as? String == "/pins/api.example.com")
        #expect(entry["logOrigin"] as? String == Self.origin)
        #expect(entry["count"] as? Int == 2)
        #expect(entry["keptCheckpoint"] as? String == report.keptCheckpoint)
        #expect(entry["refusedCheckpoint"] as? String == report.refusedCheckpoint)
        #expect(try server.reportGroups().isEmpty, "a fork is not a pin failure group")
        // PROTOCOL §7.2: the notes verify under the server's own log key and are not checkpoints of its tree (it has
        // no entry): both are recorded as forks of its log, shown by GET /admin/log and /metrics.
        let log = try server.client.request("GET", "/admin/log", headers: server.auth)
        let logStatus = try JSONSerialization.jsonObject(with: Data(log.body)) as? [String: Any]
        #expect(logStatus?["openForks"] as? Int == 2)
        #expect((logStatus?["forks"] as? [[String: Any]])?.allSatisfy { $0["source"] as? String == "report" } == true)
        #expect(try server.client.request("GET", "/metrics").text.contains("pinset_log_forks 2\n"))

        // §3's own members (origin, held, new, proof) are taken too; notes of another key are not stored.
        let fork = try Self.fork(key: logKey)
        let plain: [String: Any] = [
            "pinset-report": "log-fork", "origin": Self.origin,
            "held": String(decoding: fork.kept.bytes, as: UTF8.self),
            "new": String(decoding: fork.refused.bytes, as: UTF8.self), "proof": [String](),
        ]
        var (code, _, answer) = try await post(server, [UInt8](try JSONSerialization.data(withJSONObject: plain)))
        #expect(code == 204, "\(answer)")
        let strangers = LogForkReport(try Self.fork(), document: "/pins/api.example.com", at: Date())
        (code, _, answer) = try await post(server, strangers.encodedJSON())
        #expect(code == 400 && answer.contains("not both signed by this server's log key"), "\(answer)")

        // Bad bodies: problem+json 400 with what is wrong; nothing stored.
        var otherKind = report
        otherKind.report = "something-else"
        var badDocument = report
        badDocument.document = "/elsewhere"
        var otherOrigin = report
        otherOrigin.logOrigin = "another/log"
        otherOrigin.origin = nil  // the earlier members alone (§3's take precedence)
        var notANote = report
        notANote.refusedCheckpoint = "hello"
        notANote.new = nil
        var tooLarge = report
        tooLarge.keptCheckpoint = String(repeating: "a", count: 20_000)
        tooLarge.held = nil
        var badTime = report
        badTime.dateTime = "yesterday"
        let cases: [(LogForkReport, String)] = [
            (otherKind, "unknown pinset-report"), (badDocument, "document must be"),
            (otherOrigin, "not of the report's origin"),
            (notANote, "refused-checkpoint is not a signed checkpoint"), (tooLarge, "kept-checkpoint is over"),
            (badTime, "date-time"),
        ]
        for (body, expected) in cases {
            let (status, type, text) = try await post(server, body.encodedJSON())
            #expect(status == 400 && type == "application/problem+json" && text.contains(expected), "\(text)")
        }
        let (status, _, text) = try await post(server, Array(#"{"pinset-report":"log-fork"}"#.utf8))
        #expect(status == 400 && text.contains("missing field"), "\(text)")
        // The member's name spelled with a JSON escape is the same member (the server decodes a body for it only
        // when the bytes name it or hold a `\u` escape).
        let (escaped, _, why) = try await post(server, Array(#"{"pinset\u002dreport":"other"}"#.utf8))
        #expect(escaped == 400 && why.contains(#"unknown pinset-report \"other\""#), "\(why)")
    }
}
