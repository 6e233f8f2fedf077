import ArgumentParser
import Foundation
import OpenSSLCrypto
import PKCS11
import PinSetCore
import PinSetOpenSSL
import PinSetSigning

/// `pinset keygen`: makes a new Ed25519 signing key, in a PEM file or on a PKCS#11 token.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a new Ed25519 signing key and print its kid and public JWK.",
        discussion: """
            With --out, writes a PKCS#8 PEM file (mode 0600); refuses to overwrite an existing file. With --pkcs11, \
            generates the key pair on the token (private key sensitive and not extractable) and also prints the \
            public key PEM; refuses a label or id already on the token. Ship the printed JWK (or kid) in your apps \
            as a trusted key, or delegate it in a trust document.
            """)

    @Option(help: "Where to write the key. The file must not exist.")
    var out: String?
    @Option(
        help:
            "Generate the key on a PKCS#11 token instead: a URI with token= and object= (and optionally id=), e.g. 'pkcs11:token=pinset;object=signing-2026'."
    )
    var pkcs11: String?
    @OptionGroup var module: PKCS11Options

    func validate() throws {
        guard (out == nil) != (pkcs11 == nil) else { throw ValidationError("give exactly one of --out and --pkcs11") }
    }

    func run() throws {
        if let pkcs11 {
            try generateOnToken(pkcs11)
            return
        }
        let key = try Ed25519SigningKey.generate()
        try key.write(toNewFile: out!)
        Self.printPublic(kid: key.kid, publicKey: key.publicKey)
    }

    private func generateOnToken(_ text: String) throws {
        do throws(PKCS11Error) {
            var uri = try PKCS11URI(text)
            guard let label = uri.object else {
                throw PKCS11Error(.invalidURI, "the URI names no key label; add object=LABEL")
            }
            var generator = SystemRandomNumberGenerator()
            let id = uri.id ?? (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let token = try SignerLoader.token(uri, pkcs11: module.settings())
            let key = try PKCS11Ed25519Key.generate(on: token, label: label, id: id)
            let kid = OpenSSLTrustCrypto().kid(publicKey: key.publicKey)
            Self.printPublic(kid: kid, publicKey: key.publicKey)
            uri.id = id
            uri.pinSource = nil
            uri.modulePath = nil
            print("uri: \(uri)")
            print(Self.publicKeyPEM(key.publicKey), terminator: "")
        } catch {
            throw CLIError("keygen --pkcs11: \(error.detail)")
        }
    }

    /// `kid: …` and the public JWK on one line.
    static func printPublic(kid: String, publicKey: [UInt8]) {
        print("kid: \(kid)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let jwk = Ed25519JWK(publicKey: publicKey, kid: kid)
        print(String(decoding: (try? encoder.encode(jwk)) ?? Data(), as: UTF8.self))
    }

    /// The SubjectPublicKeyInfo PEM of a raw Ed25519 key (RFC 8410: a fixed 12-byte prefix, then the key).
    static func publicKeyPEM(_ publicKey: [UInt8]) -> String {
        let prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
        return
            "-----BEGIN PUBLIC KEY-----\n\(Data(prefix + publicKey).base64EncodedString())\n-----END PUBLIC KEY-----\n"
    }
}
