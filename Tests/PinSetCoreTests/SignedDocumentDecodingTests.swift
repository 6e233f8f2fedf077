import Foundation
import TestSupport
import Testing

@testable import PinSetCore

/// `SignedDocument.decode(json:)` reads the compact form by hand; it must agree with `JSONDecoder` on every body.
@Suite(.blocking) struct SignedDocumentDecodingTests {
    static func viaJSONDecoder(_ bytes: [UInt8]) -> SignedDocument? {
        try? JSONDecoder().decode(SignedDocument.self, from: Data(bytes))
    }

    static let compact = SignedDocument(
        protected: Base64URL.encode(SignedDocument.protectedHeader(kid: "k-_1")),
        payload: Base64URL.encode(Array(#"{"host":"example.com"}"#.utf8)),
        signature: Base64URL.encode([UInt8](repeating: 0xFB, count: 64)))

    @Test func compactFormIsScanned() throws {
        let bytes = Self.compact.serialized
        #expect(bytes.withUnsafeBufferPointer { SignedDocument.scanCompact($0) } == Self.compact)
        #expect(try SignedDocument.decode(json: bytes) == Self.compact)
        #expect(try SignedDocument.decode(json: bytes[...]) == Self.compact)
        #expect(try SignedDocument.decode(json: AnyCollection(bytes)) == Self.compact)
    }

    @Test func otherFormsAgreeWithJSONDecoder() {
        let p = Self.compact.protected, q = Self.compact.payload, s = Self.compact.signature
        let bodies = [
            #"{"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)"} "#,
            #" {"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)"}"#,
            #"{ "protected": "\#(p)", "payload": "\#(q)", "signature": "\#(s)" }"#,
            #"{"payload":"\#(q)","protected":"\#(p)","signature":"\#(s)"}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)","extra":1}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)","protected":"x"}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)"}{}"#,
            #"{"protected":"\u0041\#(p)","payload":"\#(q)","signature":"\#(s)"}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)="}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":null}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":64}"#,
            #"{"protected":"\#(p)","payload":"\#(q)"}"#,
            #"{"protected":"\#(p)","payload":"\#(q)","signature":"\#(s)""#,
            #"{"protected":"","payload":"","signature":""}"#,
            #"["protected","payload","signature"]"#,
            "", "{}", "null",
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            #expect((try? SignedDocument.decode(json: bytes)) == Self.viaJSONDecoder(bytes), "\(body)")
        }
    }

    @Test func everyOneByteChangeAgreesWithJSONDecoder() {
        let bytes = Self.compact.serialized
        let replacements: [UInt8] = Array(" \"\\,:{}=+/.-_Aa0\u{0}".utf8) + [0x80, 0xFF]
        for index in bytes.indices {
            var truncated = bytes
            truncated.removeSubrange(index...)
            #expect((try? SignedDocument.decode(json: truncated)) == Self.viaJSONDecoder(truncated))
            var removed = bytes
            removed.remove(at: index)
            #expect((try? SignedDocument.decode(json: removed)) == Self.viaJSONDecoder(removed))
            for replacement in replacements {
                var changed = bytes
                changed[index] = replacement
                #expect(
                    (try? SignedDocument.decode(json: changed)) == Self.viaJSONDecoder(changed),
                    "byte \(index) -> \(replacement)")
            }
        }
    }
}
