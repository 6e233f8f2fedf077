import ArgumentParser
import Foundation
import PinSetOpenSSL
import TransparencyLog

/// `pinset log`: transparency-log tools (PROTOCOL §7).
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "Transparency-log tools (PROTOCOL §7).",
        subcommands: [LogVerifyCommand.self, LogWatchCommand.self, LogVerifierKeyCommand.self])
}

/// `pinset log verify FILE.proof --doc FILE --policy FILE`: the offline check of PROTOCOL §7.4 steps 1 and 2.
struct LogVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check offline that a document is in a transparency log, under a C2SP tlog-policy.",
        discussion: """
            Checks the C2SP tlog-proof's inclusion proof against the RFC 6962 leaf hash of the document's exact \
            bytes, the log's signature on the checkpoint, and the witnesses' cosignatures against the policy's \
            quorum. Exits 0 when all hold, 1 with the reason when one does not. Consistency with checkpoints seen \
            before needs the log's tiles, and is not checked here.
            """)

    @Argument(help: "The C2SP tlog-proof file (as GET /pins/{host}/proof serves it).")
    var proof: String
    @Option(help: "The document, byte for byte as served.")
    var doc: String
    @Option(help: "The C2SP tlog-policy file: the log's vkey, the witnesses' vkeys and the quorum.")
    var policy: String

    func run() throws {
        let crypto = OpenSSLTrustCrypto()
        let verified: VerifiedCheckpoint
        let parsed: LogProof
        do {
            let policy = try LogPolicy(parsing: try Self.read(self.policy), crypto: crypto)
            parsed = try LogProof(parsing: try Self.read(proof))
            verified = try LogProofVerifier(policy: policy, crypto: crypto).verify(
                entry: try Self.read(doc), proof: parsed)
        } catch let error as LogError {
            throw CLIError("refused: \(error)")
        }
        print("ok: entry \(parsed.index) of \(verified.checkpoint.origin) at tree size \(verified.checkpoint.size)")
        print("cosigned by: \(verified.witnesses.sorted().joined(separator: ", "))")
    }

    /// A file's bytes, at most 1 MiB.
    static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read \(path)") }
        guard data.count <= 1 << 20 else { throw CLIError("\(path) is over 1 MiB") }
        return [UInt8](data)
    }
}
