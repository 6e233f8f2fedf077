import ArgumentParser
import Dispatch
import Foundation
import Locking
import PinSetSigning

/// `pinset sign-bench` (hidden, benchmarks only): how many signatures per second a key makes, a PEM file loaded
/// into OpenSSL or a key on a PKCS#11 token, through the server's signing abstraction (bench/hsm.sh).
struct SignBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-bench",
        abstract: "Bench only: sign COUNT document-sized messages with --key (PEM file or pkcs11: URI).",
        shouldDisplay: false)

    @Option(help: "The key: a PKCS#8 PEM file or a pkcs11: URI.") var key: String
    @Option(help: "How many signatures.") var count: Int = 2000
    @Option(help: "Threads signing at once (each takes its own PKCS#11 session).") var threads: Int = 1
    @OptionGroup var pkcs11: PKCS11Options

    func run() throws {
        guard count > 0, (1...64).contains(threads) else { throw CLIError("count > 0 and 1...64 threads") }
        let signer = try SignerLoader.open(key, pkcs11: pkcs11.settings(allowExtractableKey: true))
        // About the size of a signing input: a protected header, a dot and a two-pin payload in base64url.
        let message = Array(repeating: UInt8(ascii: "a"), count: 600)
        let failures = Locked(0)
        let started = DispatchTime.now()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let share = count / threads + (thread < count % threads ? 1 : 0)
            for _ in 0..<share where (try? signer.sign(message)) == nil { failures.withLock { $0 += 1 } }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let failed = failures.withLock { $0 }
        guard failed == 0 else { throw CLIError("\(failed) signatures failed") }
        print(String(format: "signed %d in %.3f s: %.0f signatures/s", count, seconds, Double(count) / seconds))
    }
}
