import Foundation

extension SignedDocument {
    /// Decodes a document from its JSON bytes: any JSON object with string members `protected`, `payload` and
    /// `signature` (other members are ignored), exactly as `JSONDecoder` reads ``SignedDocument``.
    ///
    /// The compact form the server writes (``serialized``, base64url characters only in the members) is read by a
    /// direct scan; everything else, including every odd or hostile body, goes through `JSONDecoder`, so both
    /// paths accept and refuse the same bodies.
    /// - Throws: the `JSONDecoder` error when `json` is not such an object.
    public static func decode(json: some Collection<UInt8>) throws -> SignedDocument {
        try decodeNotingForm(json: json).document
    }

    /// ``decode(json:)``, and whether `json` was the compact form the server writes (read by the direct scan).
    /// A compact body holds each of its three members once and nothing else, so it repeats no member name: the
    /// client's verifier looks for repeated members (PROTOCOL §5 step 1) only in the other bodies (B8).
    package static func decodeNotingForm(json: some Collection<UInt8>) throws -> (
        document: SignedDocument, compact: Bool
    ) {
        let compact =
            json.withContiguousStorageIfAvailable(scanCompact) ?? Array(json).withUnsafeBufferPointer(scanCompact)
        if let compact { return (compact, true) }
        return (try JSONDecoder().decode(SignedDocument.self, from: Data(json)), false)
    }

    /// `{"protected":"…","payload":"…","signature":"…"}` with nothing else, or `nil` (then `JSONDecoder` decides).
    ///
    /// Every byte this accepts is part of a valid JSON object whose three members are plain strings with no
    /// escapes, so `JSONDecoder` would return the very same three strings for it.
    static func scanCompact(_ bytes: UnsafeBufferPointer<UInt8>) -> SignedDocument? {
        var index = 0
        guard skip(#"{"protected":""#, in: bytes, at: &index), let protected = member(of: bytes, at: &index),
            skip(#"","payload":""#, in: bytes, at: &index), let payload = member(of: bytes, at: &index),
            skip(#"","signature":""#, in: bytes, at: &index), let signature = member(of: bytes, at: &index),
            skip(#""}"#, in: bytes, at: &index), index == bytes.count
        else { return nil }
        return SignedDocument(protected: protected, payload: payload, signature: signature)
    }

    /// Steps over `literal` if `bytes` holds it at `index`.
    private static func skip(_ literal: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Bool
    {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// A member value: base64url characters up to (not including) the closing quote.
    private static func member(of bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> String? {
        let start = index
        while index < bytes.count, Base64URL.sextet(bytes[index]) < 64 { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }
}
