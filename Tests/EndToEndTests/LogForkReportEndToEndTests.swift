import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetServer
import TestSupport
import Testing
import TransparencyLog

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

    func post(_ server: PinServerFixture, _ body: [UInt8]) async throws -> (Int, String?, String) {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("reports"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (
            http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"),
            String(decoding: data, as: UTF8.self)
        )
    }

    @Test func aClientsForkReportIsStoredCountedAndListed() async throws {
        let server = try PinServerFixture()
        let report = LogForkReport(try Self.fork(), document: "/pins/api.example.com", at: Date())
        // The real reporter, twice (a second reporter: one reporter sends the same fork once a day).
        let reporters = [PinFailureReporter(), PinFailureReporter()]
        for reporter in reporters {
            let outcome = await reporter.submit(
                report, reportUri: server.baseURL.appendingPathComponent("reports").absoluteString
            ).value
            #expect(outcome == .sent(status: 204))
        }
        var list = URLRequest(url: server.baseURL.appendingPathComponent("admin/reports"))
        list.setValue("Bearer \(server.token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: list)
        let forks = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["logForks"] as? [[String: Any]]
        let entry = try #require(forks?.first)
        #expect(forks?.count == 1)
        #expect(entry["host"] as? String == "api.example.com")
        #expect(entry["document"] as? String == "/pins/api.example.com")
        #expect(entry["logOrigin"] as? String == Self.origin)
        #expect(entry["count"] as? Int == 2)
        #expect(entry["keptCheckpoint"] as? String == report.keptCheckpoint)
        #expect(entry["refusedCheckpoint"] as? String == report.refusedCheckpoint)
        #expect(try await server.reportGroups().isEmpty, "a fork is not a pin failure group")

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
