import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetSigning
import PinSetStorage

/// `pinset seed` (hidden, development and benchmarks only): fills a database with N synthetic hosts.
///
/// Hosts are named `h<i>.bench.example` (i = 0..<N), each with one random current pin and one random backup
/// pin, enforcing. They are written by ``PinDatabase/seed(_:kid:publicKey:tokenName:signature:)`` (storage, no
/// server): the same checks, versioning and signing as `PUT /admin/hosts/{host}`, but one transaction per batch
/// instead of one per host, so 100,000 hosts take seconds instead of the ~15 minutes the admin API needs at ~100
/// durable commits/s. `make bench` uses it for B4/B7. Not for production data: the history records the token name
/// "seed".
struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Development/bench only: create N synthetic hosts h<i>.bench.example in batches.",
        shouldDisplay: false)

    @Option(help: "SQLite database file (created if missing).")
    var db: String
    @Option(help: "PKCS#8 PEM Ed25519 signing key, mode 0600, or a pkcs11: URI.")
    var key: String
    @OptionGroup var pkcs11: PKCS11Options
    @Option(help: "How many hosts to create.")
    var hosts: Int
    @Option(help: "Hosts per transaction.")
    var batch: Int = 1000

    func run() throws {
        guard hosts >= 0, batch > 0 else { throw CLIError("hosts must be >= 0 and batch > 0") }
        let store = try PinDatabase(path: db)
        let signer = try SignerLoader.open(key, pkcs11: pkcs11.settings())
        let started = Date()
        var next = 0
        while next < hosts {
            let end = min(next + batch, hosts)
            let sets = (next..<end).map { i in
                (
                    host: "h\(i).bench.example",
                    pins: [Pin(sha256: Self.randomPin()), Pin(sha256: Self.randomPin(), role: .backup)]
                )
            }
            try store.seed(sets, kid: signer.kid, publicKey: signer.publicKey, tokenName: "seed") {
                input throws(ServiceError) in
                do { return try signer.sign(input) } catch {
                    throw ServiceError(.unavailable, "the signing key (kid \(signer.kid)) cannot sign: \(error)")
                }
            }
            next = end
        }
        print("seeded \(hosts) hosts in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    private static func randomPin() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }
}
