import Foundation
import TestSupport
import Testing

@testable import PinSetCore

/// The payload's fast path (issue 22 item 6): on the server's canonical bytes it gives exactly what `JSONDecoder`
/// gives, and it steps aside for anything else.
@Suite(.blocking) struct CanonicalDecodingTests {
    static let comments: [String?] = [
        nil, "next key", "deploy after the \"March\" rotation", "back\\slash", "tab\there", "ünïcödé ✓ 🔑", "",
        "<script>alert(1)</script>",
    ]

    static func sets() -> [PinSet] {
        var generator = SystemRandomNumberGenerator()
        var sets: [PinSet] = []
        for index in 0..<200 {
            let pins = (0..<(index % 6)).map { n in
                Pin(
                    sha256: Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
                        .base64EncodedString(),
                    type: n % 3 == 2 ? .certificate : .spki, role: PinRole.allCases[n % 3],
                    expiresAt: n % 2 == 0 ? nil : Date(timeIntervalSince1970: Double(1_900_000_000 + n * 86_400)),
                    comment: comments[(index + n) % comments.count])
            }
            sets.append(
                PinSet(
                    host: index % 5 == 0 ? "xn--bcher-kva.example" : "h\(index).example.com", version: index + 1,
                    issuedAt: Date(timeIntervalSince1970: Double(1_800_000_000 + index)),
                    expiresAt: Date(timeIntervalSince1970: Double(1_801_000_000 + index)),
                    includeSubdomains: index % 2 == 0, enforce: index % 3 != 0, pins: pins,
                    reportUri: index % 4 == 0 ? "https://reports.example.com/pins?a=1&b=\(index)" : nil))
        }
        return sets
    }

    @Test func canonicalBytesDecodeExactlyAsJSONDecoderDoes() throws {
        var fast = 0
        for set in Self.sets() {
            let bytes = set.encodedJSON()
            let decoded = try JSONDecoder().decode(PinSet.self, from: Data(bytes))
            let scanned = bytes.withUnsafeBufferPointer(PinSet.decodeCanonical)
            if let scanned {
                #expect(scanned == decoded)
                fast += 1
            }
            #expect(decoded == set)
            // Only a string that needs an escape sends a canonical payload to JSONDecoder.
            let escaped = set.pins.contains { ($0.comment ?? "").contains { "\"\\\t".contains($0) } }
            #expect((scanned == nil) == escaped, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(fast > 50, "\(fast) of 200 sets took the fast path")
    }

    @Test func anythingElseStepsAside() throws {
        let set = Self.sets()[7]
        let canonical = String(decoding: set.encodedJSON(), as: UTF8.self)
        let variants = [
            canonical.replacingOccurrences(of: ",", with: ", "),  // blanks
            canonical.replacingOccurrences(of: "\"version\":", with: "\"version\" :"),
            canonical.replacingOccurrences(of: "{\"enforce\"", with: "{\"version\":9,\"enforce\""),  // duplicate key
            canonical.replacingOccurrences(of: "\"version\":8", with: "\"version\":8.0"),
            canonical.replacingOccurrences(of: "\"version\":8", with: "\"version\":08"),
            canonical.replacingOccurrences(of: ".example.com", with: "\\u002eexample.com"),
            canonical + " ",
        ]
        for variant in variants {
            let bytes = Array(variant.utf8)
            #expect(bytes.withUnsafeBufferPointer(PinSet.decodeCanonical) == nil, "\(variant)")
            // The public decoder still reads (or refuses) it, through JSONDecoder.
            let viaDecoder = try? JSONDecoder().decode(PinSet.self, from: Data(bytes))
            let viaPublic = try? PinSet.decode(json: bytes)
            if viaPublic != nil { #expect(viaPublic == viaDecoder) }
        }
    }
}
