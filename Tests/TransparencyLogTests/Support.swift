import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetOpenSSL
import TransparencyLog

@testable import PinSetServer

/// OpenSSL's SHA-256 and Ed25519, as the server uses them.
let crypto: any TrustCrypto = OpenSSLTrustCrypto()
let hasher = MerkleHasher(crypto: crypto)

func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

func b64(_ text: String) -> [UInt8] { [UInt8](Data(base64Encoded: text)!) }

/// A note signer over a fresh OpenSSL key.
func makeSigner(name: String, type: VerifierKey.SignatureType) throws -> NoteSigner {
    let key = try Ed25519SigningKey.generate()
    return NoteSigner(
        key: try VerifierKey(name: name, type: type, publicKey: key.publicKey, crypto: crypto),
        sign: { key.sign($0) })
}

/// A note signer over an Ed25519 private key given by its 32-byte seed (RFC 8032), through PKCS#8.
func makeSigner(name: String, type: VerifierKey.SignatureType, seed: [UInt8]) throws -> NoteSigner {
    let der = hex("302e020100300506032b657004220420") + seed
    let pem = "-----BEGIN PRIVATE KEY-----\n\(Data(der).base64EncodedString())\n-----END PRIVATE KEY-----\n"
    let key = try Ed25519SigningKey(pkcs8PEM: Array(pem.utf8))
    return NoteSigner(
        key: try VerifierKey(name: name, type: type, publicKey: key.publicKey, crypto: crypto),
        sign: { key.sign($0) })
}

/// A new empty folder under the system's temporary directory, named `prefix-<UUID>`; the caller removes it.
func makeTemporaryDirectory(_ prefix: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
