import Foundation
import PinSetAdminAPI
import Testing

@testable import PinSetServer

/// A problem with only the four core members is written without `JSONEncoder` (a flood's refusals are mostly that
/// encoding, issue 40's B5r); the bytes must be the encoder's, whatever the text holds.
@Suite struct ProblemBodyTests {
    @Test func theCoreBodyIsWhatTheEncoderWrites() throws {
        let texts = [
            "", "plain", #"quote " and backslash \ and slash /"#, "line\nfeed\r\ttab\u{08}\u{0C}",
            "controls \u{00}\u{01}\u{1F}\u{7F}", "unicode é ✓ 𝄞 \u{2028}\u{2029}", "<script>&'",
        ]
        for text in texts {
            let details = ProblemDetails(type: "urn:pinset:problem:x", title: text, status: 429, detail: text)
            let encoded = [UInt8](try AdminJSON.encoder.encode(details))
            let written = Problem.coreBody(type: details.type, title: text, status: 429, detail: text)
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self))")
            #expect(try JSONDecoder().decode(ProblemDetails.self, from: Data(written)) == details)
        }
    }
}
