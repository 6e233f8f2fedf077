import Foundation
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

@Suite(.blocking) struct ServiceWriteTests {
    @Test func createThenReplaceThenDetailRoundTrip() throws {
        let f = try ServiceFixture()
        let request = ServiceFixture.validSet(reportUri: "https://reports.example.com/pins")
        let created = try f.service.replace(host: "Example.COM.", request: request, ifMatch: nil, tokenName: "alice")
        #expect(created.created)
        #expect(created.detail.host == "example.com")
        #expect(created.detail.version == 1)
        #expect(created.detail.pins.map(\.sha256) == request.pins.map { $0.sha256! })
        #expect(created.detail.issuedAt == f.clock.now)
        #expect(created.detail.expiresAt == f.clock.now.addingTimeInterval(14 * 86_400))
        #expect(created.detail.etag == created.document.etag)
        #expect(created.detail.kid == f.key.kid)
        #expect(f.published.all == [created.document])

        f.clock.advance(60)
        let replaced = try f.service.replace(
            host: "example.com",
            request: SetRequest(pins: [pin(), pin(.backup), pin(.future)], includeSubdomains: true),
            ifMatch: created.detail.etag, tokenName: "bob")
        #expect(!replaced.created)
        #expect(replaced.detail.version == 2)
        #expect(replaced.detail.includeSubdomains)
        #expect(replaced.detail.reportUri == nil)
        #expect(replaced.detail.etag != created.detail.etag)
        #expect(try f.service.detail(host: "EXAMPLE.com") == replaced.detail)

        let payload = try verifiedPayload(replaced.document, publicKey: f.key.publicKey)
        #expect(payload.version == 2 && payload.host == "example.com" && payload.pins == replaced.detail.pins)
        #expect(payload.includeSubdomains && payload.enforce)
    }

    @Test func addRemoveRetireAndRecreateKeepCountingVersions() throws {
        let f = try ServiceFixture()
        let first = try f.service.replace(
            host: "api.example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t1")
        let extra = pin(.future, comment: "next key")
        let added = try f.service.addPins(
            host: "api.example.com", request: PinsRequest(pins: [extra]), ifMatch: nil, tokenName: "t2")
        #expect(added.detail.version == 2)
        #expect(added.detail.pins.count == 3)
        #expect(added.detail.pins.last?.comment == "next key")

        let urlHash = Base64URL.encode(Base64.decode(extra.sha256!)!)
        let removed = try f.service.removePin(
            host: "api.example.com", sha256URL: urlHash, ifMatch: added.detail.etag, tokenName: "t3")
        #expect(removed.detail.version == 3)
        #expect(removed.detail.pins == first.detail.pins)

        let retired = try f.service.retire(host: "api.example.com", ifMatch: nil, tokenName: "t4")
        #expect(retired.detail.version == 4)
        #expect(retired.detail.pins.isEmpty && !retired.detail.enforce)
        let retiredPayload = try verifiedPayload(retired.document, publicKey: f.key.publicKey)
        #expect(retiredPayload.pins.isEmpty && retiredPayload.version == 4)

        let recreated = try f.service.replace(
            host: "api.example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t5")
        #expect(recreated.created)
        #expect(recreated.detail.version == 5)

        let history = try f.service.history(host: "api.example.com")
        #expect(history.map(\.version) == [5, 4, 3, 2, 1])
        #expect(history.map(\.change) == [.create, .retire, .remove, .add, .create])
        #expect(history.map(\.tokenName) == ["t5", "t4", "t3", "t2", "t1"])
        #expect(history[3].added == [extra.sha256!] && history[3].removed.isEmpty)
        #expect(history[2].removed == [extra.sha256!] && history[2].added.isEmpty)
        #expect(Set(history[1].removed) == Set(first.detail.pins.map(\.sha256)))
        #expect(f.published.all.map(\.version) == [1, 2, 3, 4, 5])

        let summaries = try f.service.hosts()
        #expect(summaries.count == 1)
        #expect(summaries[0].host == "api.example.com" && summaries[0].version == 5 && summaries[0].pinCount == 2)
        #expect(summaries[0].etag == recreated.document.etag)
    }

    @Test func hostsAreListedByName() throws {
        let f = try ServiceFixture()
        for host in ["b.example", "a.example", "c.example"] {
            _ = try f.service.replace(host: host, request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        }
        #expect(try f.service.hosts().map(\.host) == ["a.example", "b.example", "c.example"])
        #expect(try PublishedDocuments.load(store: f.store).map(\.host) == ["a.example", "b.example", "c.example"])
    }

    @Test func staleOrMisplacedIfMatchIs412() throws {
        let f = try ServiceFixture()
        let first = try f.service.replace(
            host: "example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        _ = try f.service.replace(
            host: "example.com", request: ServiceFixture.validSet(), ifMatch: first.detail.etag, tokenName: "t")
        let stale = expectServiceError {
            try f.service.replace(
                host: "example.com", request: ServiceFixture.validSet(), ifMatch: first.detail.etag, tokenName: "t")
        }
        #expect(stale?.code == .preconditionFailed && stale?.status == 412)
        #expect(
            expectServiceError { try f.service.retire(host: "example.com", ifMatch: "\"nope\"", tokenName: "t") }?
                .status == 412)
        #expect(
            expectServiceError {
                try f.service.replace(
                    host: "new.example.com", request: ServiceFixture.validSet(), ifMatch: "*", tokenName: "t")
            }?.status == 412)
        // `*` and a list containing the current tag match.
        let current = try f.service.detail(host: "example.com").etag
        #expect(
            try f.service.addPins(
                host: "example.com", request: PinsRequest(pins: [pin()]), ifMatch: "\"x\", \(current)", tokenName: "t"
            ).detail.version == 3)
        #expect(try f.service.retire(host: "example.com", ifMatch: "*", tokenName: "t").detail.version == 4)
        #expect(f.published.all.map(\.version) == [1, 2, 3, 4])
    }

    @Test func unknownHostsAndPinsAre404() throws {
        let f = try ServiceFixture()
        #expect(expectServiceError { try f.service.detail(host: "nothing.example") }?.status == 404)
        #expect(expectServiceError { try f.service.history(host: "nothing.example") }?.status == 404)
        #expect(
            expectServiceError {
                try f.service.addPins(
                    host: "nothing.example", request: PinsRequest(pins: [pin()]), ifMatch: nil, tokenName: "t")
            }?.status == 404)
        #expect(
            expectServiceError { try f.service.retire(host: "nothing.example", ifMatch: nil, tokenName: "t") }?.status
                == 404)
        let unknownPin = Base64URL.encode(SecureRandom.bytes(count: 32))
        #expect(
            expectServiceError {
                try f.service.removePin(host: "nothing.example", sha256URL: unknownPin, ifMatch: nil, tokenName: "t")
            }?.status == 404)
        _ = try f.service.replace(host: "example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        #expect(
            expectServiceError {
                try f.service.removePin(host: "example.com", sha256URL: unknownPin, ifMatch: nil, tokenName: "t")
            }?.code == .notFound)
        #expect(
            expectServiceError {
                try f.service.removePin(host: "example.com", sha256URL: "not+base64url", ifMatch: nil, tokenName: "t")
            }?.code == .badRequest)
        #expect(f.published.all.count == 1)
    }

    @Test(arguments: ["", "exa mple.com", "example.com:443", "192.168.1.1", "-bad.example", "ex\u{e4}mple.com"])
    func malformedHostsAre400(host: String) throws {
        let f = try ServiceFixture()
        let error = expectServiceError {
            try f.service.replace(host: host, request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        }
        #expect(error?.code == .invalidHost && error?.status == 400)
        #expect(expectServiceError { try f.service.detail(host: host) }?.code == .invalidHost)
    }

    @Test func defaultReportURIFillsSetsWithoutOne() throws {
        let f = try ServiceFixture(
            configuration: ServiceConfiguration(defaultReportURI: "https://pins.example.com/reports"))
        let withDefault = try f.service.replace(
            host: "a.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        #expect(withDefault.detail.reportUri == "https://pins.example.com/reports")
        #expect(
            try verifiedPayload(withDefault.document, publicKey: f.key.publicKey).reportUri
                == "https://pins.example.com/reports")
        let own = try f.service.replace(
            host: "b.example", request: ServiceFixture.validSet(reportUri: "http://own.example/r"), ifMatch: nil,
            tokenName: "t")
        #expect(own.detail.reportUri == "http://own.example/r")
    }

    @Test func certificateInputsDerivePinsLikeTheOpenSSLPipeline() throws {
        let f = try ServiceFixture()
        try sh(
            """
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -subj /CN=leaf.example -days 30 -out leaf.pem 2>/dev/null
            """, in: f.directory)
        let pem = String(decoding: try sh("cat leaf.pem", in: f.directory), as: UTF8.self)
        let spkiPin = String(
            decoding: try sh(
                "openssl x509 -in leaf.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
                in: f.directory),
            as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let certPin = String(
            decoding: try sh(
                "openssl x509 -in leaf.pem -outform der | openssl dgst -sha256 -binary | base64", in: f.directory),
            as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let der64 = String(
            decoding: try sh("openssl x509 -in leaf.pem -outform der | base64 -w0", in: f.directory), as: UTF8.self)
        let request = SetRequest(pins: [
            PinInput(certificate: pem), PinInput(certificate: der64, type: .certificate, role: .backup),
        ])
        let outcome = try f.service.replace(host: "leaf.example", request: request, ifMatch: nil, tokenName: "t")
        #expect(outcome.detail.pins.map(\.sha256) == [spkiPin, certPin])
        #expect(outcome.detail.pins.map(\.type) == [.spki, .certificate])
    }

    @Test func pinInputsGivingBothOrNeitherHashAndCertificateAre400() throws {
        let f = try ServiceFixture()
        let both = SetRequest(pins: [PinInput(sha256: pin().sha256, certificate: "x"), pin(.backup)])
        #expect(
            expectServiceError {
                try f.service.replace(host: "a.example", request: both, ifMatch: nil, tokenName: "t")
            }?.code == .badRequest)
        let neither = SetRequest(pins: [PinInput(role: .current), pin(.backup)])
        #expect(
            expectServiceError {
                try f.service.replace(host: "a.example", request: neither, ifMatch: nil, tokenName: "t")
            }?.code == .badRequest)
    }
}
