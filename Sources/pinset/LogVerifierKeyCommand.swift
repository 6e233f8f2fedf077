import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetOpenSSL
import TransparencyLog

/// `pinset log vkey --key FILE --origin NAME`: the C2SP note verifier key of a log key (or, with
/// `--cosignature`, of a witness key), for witnesses' `--log`, clients' policies and `pinset log watch`.
struct LogVerifierKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vkey",
        abstract: "Print the verifier key (vkey) of a log key or a witness key.",
        discussion: """
            Reads a PKCS#8 PEM Ed25519 private key (as openssl genpkey -algorithm ed25519 writes it) and prints \
            name+keyID+base64(type || public key), the form witnesses (--log), policies (log, witness lines) and \
            pinset log watch (--log-key) take. Only the public key is printed.
            """)

    @Option(help: "The PKCS#8 PEM Ed25519 private key (the server's --log-key, or a witness's --key).")
    var key: String
    @Option(help: "The key's name: the log's origin (--log-origin), or the witness's --name.")
    var origin: String
    @Flag(help: "A witness key: cosignature type 0x04 instead of a log's Ed25519 note signature (0x01).")
    var cosignature = false

    func run() throws {
        let signingKey: Ed25519SigningKey
        do { signingKey = try Ed25519SigningKey.load(pemFile: key) } catch {
            throw CLIError("cannot read an Ed25519 private key from \(key): \(error)")
        }
        do {
            let vkey = try VerifierKey(
                name: origin, type: cosignature ? .cosignature : .ed25519, publicKey: signingKey.publicKey,
                crypto: OpenSSLTrustCrypto())
            print(vkey)
        } catch {
            throw CLIError("\(error.detail)")
        }
    }
}
