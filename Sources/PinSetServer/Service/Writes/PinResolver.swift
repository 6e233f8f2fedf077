import Foundation
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// Turns the pins of a write request into protocol pins, deriving hashes from certificates with OpenSSL.
enum PinResolver {
    /// Resolves every input. 400 when a pin gives both or neither of `sha256` and `certificate`; 422
    /// ``PinSetErrorCode/invalidPin`` when a certificate cannot be parsed. Pin times are cut to whole seconds.
    static func resolve(_ inputs: [PinInput]) throws(ServiceError) -> [Pin] {
        var pins = [Pin]()
        pins.reserveCapacity(inputs.count)
        for (index, input) in inputs.enumerated() {
            pins.append(try resolve(input, index: index))
        }
        return pins
    }

    static func resolve(_ input: PinInput, index: Int) throws(ServiceError) -> Pin {
        let type = input.type ?? .spki
        let sha256: String
        switch (input.sha256, input.certificate) {
        case (let hash?, nil):
            sha256 = hash
        case (nil, let certificate?):
            let parsed: [ParsedCertificate]
            do {
                parsed = try CertificateParser.parse(Array(certificate.utf8))
            } catch {
                throw ServiceError(PinSetError(.invalidPin, "pins[\(index)].certificate: \(error.detail)"))
            }
            guard parsed.count == 1 else {
                throw ServiceError(
                    PinSetError(
                        .invalidPin,
                        "pins[\(index)].certificate holds \(parsed.count) certificates; give one certificate per pin"))
            }
            sha256 = Base64.encode(SHA256Digest.hash(type == .spki ? parsed[0].spkiDER : parsed[0].der))
        case (.some, .some):
            throw ServiceError(
                .badRequest, "pins[\(index)] gives both \"sha256\" and \"certificate\"; give exactly one")
        case (nil, nil):
            throw ServiceError(
                .badRequest,
                "pins[\(index)] needs \"sha256\" (base64 of 32 bytes) or \"certificate\" (PEM or base64 DER)")
        }
        return Pin(
            sha256: sha256, type: type, role: input.role ?? .current,
            expiresAt: input.expiresAt.map(StoredTime.truncate), comment: input.comment)
    }
}
