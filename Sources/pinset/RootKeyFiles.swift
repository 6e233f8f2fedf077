import Foundation
import OpenSSLCrypto
import PKCS11
import PinSetCore
import PinSetOpenSSL
import PinSetRules
import PinSetSigning
import TransparencyLog

/// Reads the key files of the trust commands: Ed25519 public keys (SPKI PEM; a PKCS#8 private key PEM gives its
/// public half) and root private keys (PKCS#8 PEM, mode 0600). A `pkcs11:` URI names a key on a token instead,
/// for both: its public key is read off the token.
enum RootKeyFiles {
    /// The public key in `file`, or of the token key `file` names as a PKCS#11 URI.
    static func publicKey(_ file: String, option: String, pkcs11: PKCS11Settings? = nil) throws -> TrustedKey {
        if PKCS11URI.isURI(file) {
            let key = try privateKey(file, option: option, pkcs11: pkcs11)
            return try TrustedKey(rawRepresentation: key.publicKey, crypto: OpenSSLTrustCrypto())
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CLIError("\(option) \(file): cannot read the file")
        }
        let text = String(decoding: data, as: UTF8.self)
        do {
            if text.contains("PRIVATE KEY-----") {
                let key = try Ed25519SigningKey(pkcs8PEM: Array(text.utf8))
                return try TrustedKey(rawRepresentation: key.publicKey, crypto: OpenSSLTrustCrypto())
            }
            return try TrustedKey(spkiPEM: text, crypto: OpenSSLTrustCrypto())
        } catch {
            throw CLIError("\(option) \(file): \(error)")
        }
    }

    /// A log key for `logKeys` (`--log-key-pub`): a signed-note vkey (`origin+keyid+base64`, type Ed25519), or
    /// a key file read like ``publicKey(_:option:pkcs11:)``. Raw 32 bytes.
    static func logPublicKey(_ value: String) throws -> [UInt8] {
        guard !FileManager.default.fileExists(atPath: value), value.contains("+") else {
            return try publicKey(value, option: "--log-key-pub").rawRepresentation
        }
        let key: VerifierKey
        do {
            key = try VerifierKey(parsing: value, crypto: OpenSSLTrustCrypto())
        } catch {
            throw CLIError("--log-key-pub \(value.prefix(120)): not a vkey: \(error)")
        }
        guard key.type == .ed25519 else {
            throw CLIError("--log-key-pub \(key.name): the vkey is not a log key (type 0x01, Ed25519)")
        }
        return key.publicKey
    }

    /// The root private key in `file` (refused when group or others can read it), or on the token `file` names
    /// as a PKCS#11 URI (the PIN from its pin-source or PINSET_PKCS11_PIN); checked by a test signature.
    static func privateKey(_ file: String, option: String = "--root-key", pkcs11: PKCS11Settings? = nil) throws
        -> any DocumentSigner
    {
        do {
            return try SignerLoader.open(file, pkcs11: pkcs11 ?? PKCS11Options.settings(module: nil))
        } catch let error as CryptoError {
            throw CLIError("\(option): \(error.detail)")
        } catch {
            throw CLIError("\(option): \(error)")
        }
    }
}
