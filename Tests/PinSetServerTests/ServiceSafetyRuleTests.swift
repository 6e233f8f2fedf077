import Foundation
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

@Suite(.blocking) struct ServiceSafetyRuleTests {
    /// Expects a 422 with `rule` and that nothing was stored or published.
    func expectRule(
        _ rule: PinSetError.Code, _ request: SetRequest, configuration: ServiceConfiguration = ServiceConfiguration()
    ) throws {
        let f = try ServiceFixture(configuration: configuration)
        let error = expectServiceError {
            try f.service.replace(host: "rules.example", request: request, ifMatch: nil, tokenName: "t")
        }
        #expect(error?.code == .unprocessable)
        #expect(error?.status == 422)
        #expect(error?.rule == rule)
        #expect(f.published.all.isEmpty)
        #expect(try f.service.hosts().isEmpty)
    }

    @Test func singlePinEnforcingSetBreaksTheBackupRule() throws {
        try expectRule(.backupRuleViolated, SetRequest(pins: [pin(.backup)]))
    }

    @Test func enforcingSetWithoutBackupRoleBreaksTheBackupRule() throws {
        try expectRule(.backupRuleViolated, SetRequest(pins: [pin(), pin(.future)]))
    }

    @Test func reportOnlySetMayHaveOnePin() throws {
        let f = try ServiceFixture()
        let outcome = try f.service.replace(
            host: "a.example", request: SetRequest(pins: [pin()], enforce: false), ifMatch: nil, tokenName: "t")
        #expect(outcome.detail.version == 1 && !outcome.detail.enforce)
    }

    @Test func duplicatePinsAreRefused() throws {
        let same = pin()
        var backup = same
        backup.role = .backup
        try expectRule(.duplicatePin, SetRequest(pins: [same, backup, pin(.backup)]))
    }

    @Test func expiredPinsAreRefused() throws {
        let past = Date(timeIntervalSince1970: 1_790_000_000 - 1)
        try expectRule(.expiredPin, SetRequest(pins: [pin(), pin(.backup, expiresAt: past)]))
    }

    @Test func moreThan64PinsAreRefused() throws {
        try expectRule(.tooManyPins, SetRequest(pins: (0..<65).map { $0 == 0 ? pin(.backup) : pin() }))
    }

    @Test func malformedHashIsAnInvalidPin() throws {
        try expectRule(.invalidPin, SetRequest(pins: [PinInput(sha256: "abc="), pin(.backup)]))
        try expectRule(
            .invalidPin,
            SetRequest(pins: [PinInput(sha256: Base64URL.encode(SecureRandom.bytes(count: 32))), pin(.backup)]))
    }

    @Test func longCommentIsAnInvalidPin() throws {
        try expectRule(.invalidPin, SetRequest(pins: [pin(comment: String(repeating: "x", count: 201)), pin(.backup)]))
    }

    @Test func unparsableCertificateIsAnInvalidPin() throws {
        try expectRule(
            .invalidPin,
            SetRequest(pins: [
                PinInput(certificate: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"), pin(.backup),
            ]))
    }

    @Test(arguments: ["ftp://example.com/r", "/relative/path", "https://", "not a url", "javascript:alert(1)"])
    func reportURIMustBeAbsoluteHTTP(uri: String) throws {
        try expectRule(.invalidReportURI, ServiceFixture.validSet(reportUri: uri))
    }

    @Test func removingDownToOnePinOfAnEnforcingSetIs422() throws {
        let f = try ServiceFixture()
        let outcome = try f.service.replace(
            host: "a.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        for victim in outcome.detail.pins {
            let error = expectServiceError {
                try f.service.removePin(
                    host: "a.example", sha256URL: Base64URL.encode(victim.hashBytes!), ifMatch: nil, tokenName: "t")
            }
            #expect(error?.rule == .backupRuleViolated)
        }
        #expect(try f.service.detail(host: "a.example").version == 1)
        #expect(f.published.all.count == 1)
    }

    @Test func addingADuplicateIs422() throws {
        let f = try ServiceFixture()
        let request = ServiceFixture.validSet()
        _ = try f.service.replace(host: "a.example", request: request, ifMatch: nil, tokenName: "t")
        let error = expectServiceError {
            try f.service.addPins(
                host: "a.example", request: PinsRequest(pins: [request.pins[0]]), ifMatch: nil, tokenName: "t")
        }
        #expect(error?.rule == .duplicatePin)
    }
}

@Suite(.blocking) struct ServiceRequestDecodingTests {
    /// The problem the router answers for the body `decode` refuses (a ``RequestBodyError``), or `nil` (recorded).
    func expectBodyRefused<T>(_ decode: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation)
        -> Problem?
    {
        do {
            _ = try decode()
            Issue.record("expected a RequestBodyError", sourceLocation: sourceLocation)
        } catch let error as RequestBodyError {
            return error.problem
        } catch {
            Issue.record("expected a RequestBodyError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test func setRequestDefaults() throws {
        let request = try SetRequest(
            json: Array(#"{"pins":[{"sha256":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}"#.utf8))
        #expect(request.includeSubdomains == false && request.enforce == true && request.reportUri == nil)
        #expect(request.pins[0].type == nil && request.pins[0].role == nil)
    }

    @Test func fullSetRequestDecodes() throws {
        let json =
            #"{"pins":[{"sha256":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","type":"certificate","role":"backup","expiresAt":"2030-01-02T03:04:05Z","comment":"c"}],"includeSubdomains":true,"enforce":false,"reportUri":"https://r.example/"}"#
        let request = try SetRequest(json: Array(json.utf8))
        #expect(request.includeSubdomains && !request.enforce && request.reportUri == "https://r.example/")
        #expect(
            request.pins[0].type == .certificate && request.pins[0].role == .backup && request.pins[0].comment == "c")
        #expect(request.pins[0].expiresAt == RFC3339.parse("2030-01-02T03:04:05Z"))
    }

    @Test(arguments: [
        ("not json", "not valid JSON"),
        (#"{"pin":[]}"#, "pin"),
        (#"{}"#, "pins"),
        (#"{"pins":[],"includeSubDomains":true}"#, "includeSubDomains"),
        (#"{"pins":[{"sha256":"x","expires":"2030-01-01T00:00:00Z"}]}"#, "expires"),
        (#"{"pins":[{"sha256":"x","role":"primary"}]}"#, "role"),
        (#"{"pins":[{"sha256":"x","expiresAt":"tomorrow"}]}"#, "expiresAt"),
        (#"{"pins":"all"}"#, "pins"),
    ])
    func badBodiesAre400NamingTheProblem(json: String, mention: String) {
        let problem = expectBodyRefused { try SetRequest(json: Array(json.utf8)) }
        #expect(problem?.slug == "bad-request" && problem?.status == 400)
        #expect(problem?.detail.contains(mention) == true, "\(problem?.detail ?? "")")
    }

    @Test func pinsRequestRefusesPolicyFields() {
        #expect(
            expectBodyRefused { try PinsRequest(json: Array(#"{"pins":[],"enforce":false}"#.utf8)) }?.slug
                == "bad-request")
        #expect((try? PinsRequest(json: Array(#"{"pins":[{"certificate":"x"}]}"#.utf8)))?.pins.count == 1)
    }

    @Test func hostDetailEncodesRFC3339Dates() throws {
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let detail = HostDetail(
            host: "a.example", version: 1, etag: "\"e\"", issuedAt: date, expiresAt: date, updatedAt: date,
            includeSubdomains: false, enforce: true, pins: [], reportUri: nil, kid: "k")
        let text = String(decoding: try AdminJSON.encoder.encode(detail), as: UTF8.self)
        #expect(text.contains(#""issuedAt":"\#(RFC3339.format(date))""#))
        #expect(!text.contains("reportUri"))
        #expect(try AdminJSON.decoder.decode(HostDetail.self, from: Data(text.utf8)) == detail)
    }

    @Test func hostDetailWriterMatchesJSONEncoder() throws {
        let encoder = AdminJSON.encoder
        let pin = Pin(
            sha256: Base64.encode([UInt8](repeating: 0xFB, count: 32)), type: .certificate, role: .backup,
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000), comment: "a \"quoted\"\n/comment\u{1}é")
        for (pins, reportUri) in [([Pin](), String?.none), ([pin, pin], "https://r.example/a/b?c=\"d\"")] {
            let detail = HostDetail(
                host: "a.example", version: 12, etag: "\"abc/def\"", issuedAt: Date(timeIntervalSince1970: 1),
                expiresAt: Date(timeIntervalSince1970: 1_790_000_000), updatedAt: Date(timeIntervalSince1970: 0),
                includeSubdomains: true, enforce: false, pins: pins, reportUri: reportUri, kid: "k-_1")
            #expect(detail.encodedJSON() == [UInt8](try encoder.encode(detail)))
        }
    }

    /// A write's answer is its outcome's Codable form: the writer's bytes without a report, and with one the
    /// detail's members plus `preflight` (issue 21 item 3: no byte splicing).
    @Test func writeOutcomeEncodesAsItsDetailWithThePreflightReport() throws {
        let f = try ServiceFixture()
        var outcome = try f.service.replace(
            host: "api.example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        #expect(try outcome.encodedJSON() == [UInt8](try AdminJSON.encoder.encode(outcome)))
        #expect(try outcome.encodedJSON() == outcome.detail.encodedJSON())
        outcome.preflight = PreflightReport(
            status: .match, detail: "ok", addresses: [AddressProbe(address: "192.0.2.1:443", leafNotAfter: Date())])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try outcome.encodedJSON())) as? [String: Any])
        #expect(object["host"] as? String == "api.example.com" && object["version"] as? Int == 1)
        let preflight = try #require(object["preflight"] as? [String: Any])
        #expect(preflight["status"] as? String == "match")
        let address = try #require((preflight["addresses"] as? [[String: Any]])?.first)
        #expect((address["leafNotAfter"] as? String).flatMap(RFC3339.parse) != nil)
    }
}
