import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetCore

/// `pinset keygen`: makes a new Ed25519 signing key.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a new PKCS#8 PEM Ed25519 signing key (mode 0600) and print its kid and public JWK.",
        discussion:
            "Refuses to overwrite an existing file. Ship the printed JWK (or kid) in your apps as a trusted key.")

    @Option(help: "Where to write the key. The file must not exist.")
    var out: String

    func run() throws {
        let key = try Ed25519SigningKey.generate()
        try key.write(toNewFile: out)
        print("kid: \(key.kid)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let jwk = Ed25519JWK(publicKey: key.publicKey, kid: key.kid)
        print(String(decoding: try encoder.encode(jwk), as: UTF8.self))
    }
}
