import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetRules
import PinSetServer

/// Reads the key files of the trust commands: Ed25519 public keys (SPKI PEM; a PKCS#8 private key PEM gives its
/// public half) and root private keys (PKCS#8 PEM, mode 0600).
enum RootKeyFiles {
    /// The public key in `file`.
    static func publicKey(_ file: String, option: String) throws -> TrustedKey {
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

    /// The root private key in `file` (refused when group or others can read it).
    static func privateKey(_ file: String) throws -> Ed25519SigningKey {
        do {
            return try Ed25519SigningKey.load(pemFile: file)
        } catch {
            throw CLIError("--root-key: \(error.detail)")
        }
    }

    /// The trust document file (`-` for standard input).
    static func document(_ file: String) throws -> [UInt8] {
        if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read \(file)") }
        return Array(data)
    }
}
