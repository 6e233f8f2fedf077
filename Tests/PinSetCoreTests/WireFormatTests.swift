import Foundation
import Testing

@testable import PinSetCore

@Test func rfc3339RoundTripsAndIsStrict() throws {
    let date = Date(timeIntervalSince1970: 1_795_000_000)
    let text = RFC3339.format(date)
    #expect(text == "2026-11-18T11:06:40Z")
    #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_399.999)) == "2000-02-28T23:59:59Z")
    #expect(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
    #expect(RFC3339.parse(text) == date)
    #expect(RFC3339.parse("2026-11-18T13:06:40+02:00") == date)
    #expect(RFC3339.parse("2026-11-18T11:06:40.5Z") == date.addingTimeInterval(0.5))
    for bad in ["2026-11-18", "2026-02-30T00:00:00Z", "2026-11-18T07:46:40", "2026-13-01T00:00:00Z", "x"] {
        #expect(RFC3339.parse(bad) == nil, "\(bad)")
    }
}

@Test func base64urlHasNoPadding() {
    #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    #expect(Base64URL.decode("-_8=") == nil)
    #expect(Base64URL.decode("+/8") == nil)
}

@Test func payloadRoundTrips() throws {
    let pin = Pin(sha256: Base64.encode([UInt8](repeating: 7, count: 32)), role: .backup, comment: "spare")
    let set = PinSet(
        host: "api.example.com", version: 3, issuedAt: Date(timeIntervalSince1970: 1_795_000_000),
        expiresAt: Date(timeIntervalSince1970: 1_796_000_000), pins: [pin], reportUri: "https://r.example/x")
    let bytes = set.encodedJSON()
    #expect(String(decoding: bytes, as: UTF8.self).contains("\"issuedAt\":\"2026-11-18T11:06:40Z\""))
    #expect(try PinSet.decode(json: bytes) == set)
}

@Test func safetyRulesNameTheRule() {
    let a = Pin(sha256: Base64.encode([UInt8](repeating: 1, count: 32)))
    let b = Pin(sha256: Base64.encode([UInt8](repeating: 2, count: 32)), role: .backup)
    let now = Date()
    #expect(throws: Never.self) { try PinSet.checkSafetyRules(pins: [a, b], enforce: true, now: now) }
    #expect(throws: Never.self) { try PinSet.checkSafetyRules(pins: [a], enforce: false, now: now) }
    #expect(throws: Never.self) { try PinSet.checkSafetyRules(pins: [], enforce: true, now: now) }
    func code(_ pins: [Pin], _ enforce: Bool = true) -> PinSetError.Code? {
        do { try PinSet.checkSafetyRules(pins: pins, enforce: enforce, now: now); return nil } catch {
            return error.code
        }
    }
    #expect(code([a]) == .backupRuleViolated)
    #expect(code([a, Pin(sha256: b.sha256)]) == .backupRuleViolated)
    #expect(code([a, a, b]) == .duplicatePin)
    #expect(code([a, Pin(sha256: b.sha256, role: .backup, expiresAt: now.addingTimeInterval(-1))]) == .expiredPin)
    #expect(code([a, Pin(sha256: "abc", role: .backup)]) == .invalidPin)
    let many = (0..<65).map { Pin(sha256: Base64.encode([UInt8](repeating: UInt8($0), count: 32)), role: .backup) }
    #expect(code(many) == .tooManyPins)
}

@Test func documentSerialisationIsExact() {
    let doc = SignedDocument(protected: "aa", payload: "bb", signature: "cc")
    #expect(String(decoding: doc.serialized, as: UTF8.self) == #"{"protected":"aa","payload":"bb","signature":"cc"}"#)
    #expect(
        String(decoding: SignedDocument.protectedHeader(kid: "K"), as: UTF8.self)
            == #"{"alg":"EdDSA","kid":"K","typ":"pinset+jws"}"#)
}
