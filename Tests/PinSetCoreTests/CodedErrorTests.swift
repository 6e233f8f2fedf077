import Foundation
import Testing

@testable import PinSetCore

/// The one error shape (issue 36 item 4): every module's error is ``CodedError`` over its code enum; the code
/// strings (the wire's `rule`, the shared vectors) and the description forms stay what they were.
@Suite struct CodedErrorTests {
    @Test func codesKeepTheirWireStrings() {
        #expect(PinSetError.Code.wouldLockOut.rawValue == "would-lock-out")
        #expect(PinSetError.Code.documentTooLarge.rawValue == "document-too-large")
        #expect(PinSetError.Code.backupRuleViolated.rawValue == "backupRuleViolated")
        #expect(TrustRejection.Code.signingKeyNotListed.rawValue == "signingKeyNotListed")
        #expect(TrustRejection.Code.allCases.count == 16)
    }

    @Test func descriptionIsTheDetailOrCodeAndDetail() {
        // Write errors print their detail alone; rejections print "<code>: <detail>" (the CLI's `refused:` line).
        #expect(PinSetError(.duplicatePin, "pin x twice").description == "pin x twice")
        #expect(TrustRejection(.rollback, "version 2 < 3").description == "rollback: version 2 < 3")
        #expect("\(TrustRejection(.expired, "old"))" == "expired: old")
    }

    @Test func errorsCompareByCodeAndDetailAndAreCaughtByTheirName() {
        #expect(PinSetError(.expiredPin, "a") == PinSetError(.expiredPin, "a"))
        #expect(PinSetError(.expiredPin, "a") != PinSetError(.invalidPin, "a"))
        #expect(Set([PinSetError(.expiredPin, "a"), PinSetError(.expiredPin, "a")]).count == 1)
        func fail() throws { throw PinSetError(.tooManyPins, "65 pins") }
        do {
            try fail()
            Issue.record("no error")
        } catch let error as PinSetError {
            #expect(error.code == .tooManyPins)
        } catch {
            Issue.record("caught as \(type(of: error))")
        }
    }

    /// One member list (``JSONMembers``) serves `Encodable` too: any encoder, sorted or not, whatever its date
    /// strategy, writes RFC 3339 dates and round-trips the payload.
    @Test func payloadEncodableUsesTheSameMembers() throws {
        let set = PinSet(
            host: "a.example", version: 3, issuedAt: Date(timeIntervalSince1970: 1_790_000_000),
            expiresAt: Date(timeIntervalSince1970: 1_791_000_000), includeSubdomains: true, enforce: false,
            pins: [
                Pin(
                    sha256: Base64.encode([UInt8](repeating: 1, count: 32)), role: .backup,
                    expiresAt: Date(timeIntervalSince1970: 1_800_000_000), comment: "spare")
            ], reportUri: "https://r.example/report")
        let plain = try JSONEncoder().encode(set)
        let text = String(decoding: plain, as: UTF8.self)
        #expect(text.contains(#""issuedAt":"2026-09-21T14:13:20Z""#))
        #expect(text.contains(#""expiresAt":"2026-10-03T04:00:00Z""#))
        #expect(try JSONDecoder().decode(PinSet.self, from: plain) == set)
        #expect(try PinSet.decode(json: set.encodedJSON()) == set)
    }
}
