import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetServer
import TestSupport
import Testing
import TransparencyLog

/// Issue 24: the server's `POST /reports` takes the client's log-fork report (docs/CLIENT-LOG.md) beside TrustKit
/// reports. The real client's reporter posts a `LogForkReport` of two checkpoints signed by one log key; the
/// server stores and counts it and lists it in `GET /admin/reports`; bad bodies get a problem+json `400`.
@Suite struct LogForkReportEndToEndTests {
    static let origin = "pins.test/log"

    /// Two checkpoints of one size with other roots, both signed by the same log key: a fork.
    static func fork() throws -> LogFork {
        let signer = try NoteSigner(name: origin, type: .ed25519, key: Ed25519SigningKey.generate())
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

    @Test func aClientsForkReportIsStoredCountedAndListed() async throws {
        let server = try TestServer(refreshInterval: 1)
        let report = LogForkReport(try Self.fork(), document: "/pins/api.example.com", at: Date())
        // The real reporter, twice (a second reporter: one reporter sends the same fork once a day).
        let reporters = [PinFailureReporter(), PinFailureReporter()]
        for reporter in reporters {
            let outcome = await reporter.submit(
                report, reportUri: server.baseURL.appendingPathComponent("reports").absoluteString
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

        // Bad bodies: problem+json 400 with what is wrong; nothing stored.
        var otherKind = report
        otherKind.report = "something-else"
        var badDocument = report
        badDocument.document = "/elsewhere"
        var otherOrigin = report
        otherOrigin.logOrigin = "another/log"
        var notANote = report
        notANote.refusedCheckpoint = "hello"
        var tooLarge = report
        tooLarge.keptCheckpoint = String(repeating: "a", count: 20_000)
        var badTime = report
        badTime.dateTime = "yesterday"
        let cases: [(LogForkReport, String)] = [
            (otherKind, "unknown pinset-report"), (badDocument, "document must be"), (otherOrigin, "not of log-origin"),
            (notANote, "refused-checkpoint is not a signed checkpoint"), (tooLarge, "kept-checkpoint is over"),
            (badTime, "date-time"),
        ]
        for (body, expected) in cases {
            let (status, type, text) = try await post(server, body.encodedJSON())
            #expect(status == 400 && type == "application/problem+json" && text.contains(expected), "\(text)")
        }
        let (status, _, text) = try await post(server, Array(#"{"pinset-report":"log-fork"}"#.utf8))
        #expect(status == 400 && text.contains("missing field"), "\(text)")
    }
}
