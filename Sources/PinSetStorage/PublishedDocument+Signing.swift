import Foundation
import PinSetCore

extension PublishedDocument {
    /// How long a signed document stays valid (`expiresAt - issuedAt`) unless the server is told otherwise
    /// (`ServiceConfiguration.documentLifetime`): 14 days.
    package static let defaultLifetime: TimeInterval = 14 * 86_400

    /// Signs `set` as key `kid`: returns the document and the payload JSON it carries. The one signing of a pin set,
    /// for the server's writes and re-signing and for `pinset seed`.
    ///
    /// - Parameter signature: the key's Ed25519 signature of the bytes it is given; its error is thrown as it is.
    /// - Throws: 422 ``PinSetErrorCode/documentTooLarge`` before anything is signed (issue 40: never sign what
    ///   clients refuse), or `signature`'s error.
    package static func signing(
        _ set: PinSet, kid: String, signature: ([UInt8]) throws(ServiceError) -> [UInt8]
    ) throws(ServiceError) -> (document: PublishedDocument, payload: [UInt8]) {
        let payload = set.encodedJSON()
        let unsigned = SignedDocument(
            protected: Base64URL.encode(SignedDocument.protectedHeader(kid: kid)), payload: Base64URL.encode(payload),
            signature: "")
        // An Ed25519 signature is 86 characters of base64url, so the signed document's size is known now.
        guard unsigned.serialized.count + 86 <= SignedDocument.maxSignedBytes else {
            throw tooLarge(payloadBytes: payload.count)
        }
        var signed = unsigned
        signed.signature = Base64URL.encode(try signature(unsigned.signingInput))
        let document = PublishedDocument(
            host: set.host, version: set.version, body: signed.serialized, kid: kid, issuedAt: set.issuedAt,
            expiresAt: set.expiresAt)
        return (document, payload)
    }

    /// The 422 of a set whose signed document would exceed ``SignedDocument/maxSignedBytes``.
    private static func tooLarge(payloadBytes: Int) -> ServiceError {
        ServiceError(
            PinSetError(
                .documentTooLarge,
                "the signed document would be larger than \(SignedDocument.maxSignedBytes) bytes (its payload is \(payloadBytes) bytes); shorten the pins' comments or remove pins"
            ))
    }
}
