import Foundation
import OpenSSLCrypto
import PinSetOpenSSL
import TransparencyLog

/// The transparency log's part of an export (`pinset export --log-from URL`, PROTOCOL §7): the server's
/// `log/checkpoint`, the tiles and entry bundles (only those new or wider since the checkpoint already exported:
/// full tiles never change, so one on disk is never fetched again), and each exported document's proof.
///
/// Layout below the export directory: `log/…` exactly as the server serves it; the proof of `pins/<host>` in
/// `proof/pins/<host>` and of `trust/<version>` in `proof/trust/<version>` (a path cannot be both the file
/// `pins/<host>` and a folder holding `proof`; the web server maps `/pins/<host>/proof` there). The checkpoint is
/// written last, so a mirror never announces a tree whose tiles it lacks.
///
/// A document whose proof does not (yet) include its exact bytes is held back, the file already exported kept:
/// the server serves a document only once a signed checkpoint includes it (PROTOCOL §7.3), and so does the mirror.
///
/// One instance lives as long as an `export --watch`: it remembers the proofs it wrote, and fetches a document's
/// proof again only when the document changed or the latest checkpoint carries more signatures (cosignatures)
/// than the proof's. A proof of an older checkpoint stays valid (clients check it against newer ones from the
/// tiles), so a round costs requests for what changed, not one per host.
final class ExportLog {
    let source: LogSource
    let root: URL
    private let crypto = OpenSSLTrustCrypto()
    private let hasher = MerkleHasher(crypto: OpenSSLTrustCrypto())
    /// Per document path: the SHA-256 of the bytes its written proof includes, and that proof's signature count.
    private var written: [String: (digest: [UInt8], signatures: Int)] = [:]

    init(source: LogSource, root: URL) {
        self.source = source
        self.root = root
    }

    /// What the log adds to an export.
    struct Files {
        /// Tiles and bundles, then proofs; write them before the documents.
        var before: [(URL, Data)] = []
        /// The checkpoint; write it after everything else.
        var checkpoint: (URL, Data)
        /// The documents held back (`pins/<host>` or `trust/<version>`).
        var heldBack: Set<String> = []
        /// The proofs fetched, for ``didWrite(_:)``.
        fileprivate var proofs: [String: (digest: [UInt8], signatures: Int)] = [:]
    }

    /// Remembers the proofs of `files` once they are written, so the next round does not fetch them again.
    func didWrite(_ files: Files) {
        written.merge(files.proofs) { $1 }
    }

    /// The log files and proofs for `documents` (path below the export, e.g. `pins/api.example.com`, and bytes).
    ///
    /// The checkpoint is read again after the proofs: checkpoints only grow, so the exported one covers every
    /// proof's, and the exported tiles can prove each proof's consistency with it. A proof whose checkpoint is
    /// still larger (a stale cache in front of the server) is held back with its document.
    func files(documents: [(path: String, body: [UInt8])]) throws -> Files {
        let signatures = try checkpoint().note.signatures.count
        var proofs: [(path: String, proof: [UInt8], digest: [UInt8], body: [UInt8])] = []
        var heldBack: Set<String> = []
        for (path, body) in documents {
            let digest = crypto.sha256(body)
            if let known = written[path], known.digest == digest, known.signatures >= signatures { continue }
            let proofPath =
                (path.hasPrefix("pins/") ? "pins/" + String(path.dropFirst(5)).pathSegment : path) + "/proof"
            guard let proof = try? source.read(proofPath) else {
                heldBack.insert(path)
                continue
            }
            proofs.append((path, proof, digest, body))
        }
        let (noteBytes, note) = try checkpoint()
        let size = try Checkpoint(text: note.text).size
        let exported = root.appendingPathComponent("log/checkpoint")
        let oldSize =
            (try? Checkpoint(text: SignedNote(parsing: [UInt8](Data(contentsOf: exported))).text).size) ?? 0
        var result = Files(checkpoint: (exported, Data(noteBytes)), heldBack: heldBack)
        for tile in Tile.all(treeSize: size)
        where tile.index >= Tile.hashCount(level: tile.level, treeSize: min(oldSize, size)) / Tile.fullWidth {
            for path in tile.level == 0 ? [tile.path, tile.entriesPath] : [tile.path] {
                let url = root.appendingPathComponent("log/" + path)
                if !tile.isPartial, FileManager.default.fileExists(atPath: url.path) { continue }
                try MirrorFiles.makeDirectory(url.deletingLastPathComponent())
                result.before.append((url, Data(try source.read("log/" + path))))
            }
        }
        for (path, proof, digest, body) in proofs {
            guard let count = includes(proof, body, within: size) else {
                result.heldBack.insert(path)
                continue
            }
            let url = root.appendingPathComponent("proof/" + path)
            try MirrorFiles.makeDirectory(url.deletingLastPathComponent())
            result.before.append((url, Data(proof)))
            result.proofs[path] = (digest, count)
        }
        return result
    }

    /// The source's checkpoint, its bytes and parsed.
    private func checkpoint() throws -> (bytes: [UInt8], note: SignedNote) {
        let bytes = try source.read("log/checkpoint")
        do {
            return (bytes, try SignedNote(parsing: bytes))
        } catch {
            throw CLIError("\(source.base)/log/checkpoint: \(error)")
        }
    }

    /// Whether `proof` (a C2SP tlog-proof) shows `body` in its checkpoint: the number of signatures on that
    /// checkpoint, or nil. Signatures are the clients' and monitors' business; this only keeps a mirror from
    /// pairing a document with another document's proof.
    private func includes(_ proof: [UInt8], _ body: [UInt8], within size: Int) -> Int? {
        guard let parsed = try? LogProof(parsing: proof),
            let checkpoint = try? Checkpoint(text: parsed.checkpoint.text), checkpoint.size <= size,
            hasher.verifyInclusion(
                leaf: hasher.leafHash(body), index: parsed.index, size: checkpoint.size, proof: parsed.inclusionProof,
                root: checkpoint.rootHash)
        else { return nil }
        return parsed.checkpoint.signatures.count
    }
}
