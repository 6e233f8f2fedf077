import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetCore

/// `pinset pin`: prints the pin of certificates or public keys in files, or of a live TLS chain.
struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print the pin of each certificate or public key in FILE (PEM, DER or a PEM bundle).",
        discussion: """
            One line per certificate: `<base64 pin>  <subject>` (pin, two spaces, subject). A public key file \
            prints `<pin>  (public key)`. `-` reads standard input. The SPKI pin equals \
            `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
            --connect HOST:PORT makes a TLS handshake and prints `<pin>  leaf|intermediate|root  <subject>` for \
            every certificate the server presents. The chain is NOT validated: a diagnostic, not a trust decision.
            """)

    @Argument(help: "Certificate or public key files (PEM, DER, PEM bundle); - for standard input.")
    var files: [String] = []
    @Option(help: "spki (default) or certificate (SHA-256 of the whole DER certificate).")
    var type: String = "spki"
    @Option(help: "HOST:PORT: make a TLS handshake and print the pins of the chain presented (NOT validated).")
    var connect: String?
    @Option(help: "SNI name to send with --connect (default: HOST).")
    var servername: String?

    func validate() throws {
        guard ["spki", "certificate"].contains(type) else {
            throw ValidationError("--type must be spki or certificate, not \"\(type)\"")
        }
        guard connect != nil || !files.isEmpty else {
            throw ValidationError("give at least one FILE (or - for standard input), or --connect HOST:PORT")
        }
        guard connect == nil || files.isEmpty else {
            throw ValidationError("give either FILE... or --connect, not both")
        }
    }

    func run() async throws {
        if let connect {
            let chain = try await ChainProbe.presentedChain(endpoint: connect, serverName: servername)
            print("# chain presented by \(connect), NOT validated (diagnostic only; this says nothing about trust)")
            for (index, der) in chain.enumerated() {
                guard let certificate = try CertificateParser.parse(der).first else { continue }
                let isRoot = index == chain.count - 1 && index > 0 && ChainProbe.isSelfIssued(der)
                let position = index == 0 ? "leaf" : (isRoot ? "root" : "intermediate")
                print("\(pin(of: certificate))  \(position)  \(certificate.subject)")
            }
            return
        }
        for file in files {
            let bytes = try InputFile.bytes(file)
            let certificates: [ParsedCertificate]
            do {
                certificates = try CertificateParser.parse(bytes)
            } catch {
                guard type == "spki", let spki = try? CertificateParser.publicKeySPKI(bytes) else {
                    throw CLIError(
                        "\(file): not a certificate\(type == "spki" ? " or public key" : "") (PEM, DER or base64 DER): \(error)"
                    )
                }
                print("\(Base64.encode(SHA256Digest.hash(spki)))  (public key)")
                continue
            }
            for certificate in certificates {
                print("\(pin(of: certificate))  \(certificate.subject)")
            }
        }
    }

    private func pin(of certificate: ParsedCertificate) -> String {
        type == "certificate"
            ? Base64.encode(SHA256Digest.hash(certificate.der)) : Base64.encode(SHA256Digest.hash(certificate.spkiDER))
    }
}
