import ArgumentParser
import Foundation
import MicroHTTPD
import OpenSSLCrypto
import PinSetOpenSSL
import PinSetWitness
import TransparencyLog

/// `pinset witness`: runs a C2SP tlog-witness for the logs given by their vkeys (PROTOCOL §7.2).
struct WitnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness",
        abstract: "Run a transparency-log witness (C2SP tlog-witness: POST /add-checkpoint).",
        discussion: """
            The witness cosigns a checkpoint of a log it follows only if it is consistent with the newest one it \
            cosigned before, which it keeps in its own SQLite file; an inconsistent one is refused with 409 and \
            the size it holds. Every option falls back to the environment variable named in its help. Prints \
            the witness's vkey (for client policies) and stops on SIGTERM or SIGINT.
            """)

    @Option(
        help: "The witness's name, its key name in cosignatures (e.g. witness.example.com). Env PINSET_WITNESS_NAME.")
    var name: String?
    @Option(help: "PKCS#8 PEM Ed25519 witness key, mode 0600. Env PINSET_WITNESS_KEY. Default ./data/witness-key.pem.")
    var key: String?
    @Option(
        help:
            "A log to follow, as its note verifier key (name+id+base64; the name is the log's origin). Repeatable. Env PINSET_WITNESS_LOGS (space-separated)."
    )
    var log: [String] = []
    @Option(help: "The witness's SQLite file. Env PINSET_WITNESS_DB. Default ./data/witness.sqlite.")
    var db: String?
    @Option(help: "TCP port (0 picks a free one). Env PINSET_WITNESS_PORT. Default 8090.")
    var port: Int?
    @Option(help: "Address to listen on. Env PINSET_WITNESS_BIND. Default 127.0.0.1.")
    var bind: String?

    func run() throws {
        guard let name = name ?? ProcessInfo.processInfo.environment["PINSET_WITNESS_NAME"], !name.isEmpty else {
            throw CLIError("--name (or PINSET_WITNESS_NAME) is required: the witness's key name")
        }
        let keyPath = Environment.string(key, "PINSET_WITNESS_KEY", default: "./data/witness-key.pem")
        let logTexts =
            log.isEmpty
            ? Environment.string(nil, "PINSET_WITNESS_LOGS", default: "").split(separator: " ").map(String.init) : log
        guard !logTexts.isEmpty else { throw CLIError("give at least one --log VKEY (or PINSET_WITNESS_LOGS)") }
        let crypto = OpenSSLTrustCrypto()
        var logs: [VerifierKey] = []
        for text in logTexts {
            do {
                logs.append(try VerifierKey(parsing: text, crypto: crypto))
            } catch {
                throw CLIError("--log \(text): \(error.detail)")
            }
        }
        let signer: NoteSigner
        do {
            signer = try NoteSigner(name: name, type: .cosignature, key: try Ed25519SigningKey.load(pemFile: keyPath))
        } catch {
            throw CLIError("cannot use the witness key: \(error)")
        }
        let databasePath = Environment.string(db, "PINSET_WITNESS_DB", default: "./data/witness.sqlite")
        let witness: Witness
        do {
            witness = try Witness(signer: signer, logs: logs, databasePath: databasePath, crypto: crypto)
        } catch {
            throw CLIError("cannot open the witness database \(databasePath): \(error)")
        }
        var http = HTTPServerConfiguration()
        http.bindAddress = Environment.string(bind, "PINSET_WITNESS_BIND", default: "127.0.0.1")
        let port = try Environment.int(self.port, "PINSET_WITNESS_PORT", default: 8090)
        guard (0...65_535).contains(port) else { throw CLIError("port \(port) is not between 0 and 65535") }
        http.port = UInt16(port)
        // A request is a checkpoint note and up to 63 proof lines.
        http.maxBodyBytes = SignedNote.maxBytes + 8192
        // Catch SIGTERM and SIGINT before the banner, so a signal sent as soon as it is read stops cleanly.
        let stop = StopSignal()
        let server: HTTPServer
        do {
            server = try HTTPServer(configuration: http, handler: WitnessHandler(witness: witness))
        } catch {
            throw CLIError("cannot start: \(error)")
        }
        let host = http.bindAddress.contains(":") ? "[\(http.bindAddress)]" : http.bindAddress
        print("pinset witness is serving on http://\(host):\(server.port)")
        print("  vkey: \(witness.verifierKey)")
        print("  logs: \(logs.map(\.name).joined(separator: ", "))")
        fflush(nil)
        while !stop.sleep(3600) {}
        server.shutdown()
    }
}
