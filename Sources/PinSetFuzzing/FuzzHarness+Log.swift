import PinSetClient
import PinSetOpenSSL
import PinSetServer

extension FuzzHarness {
    /// The transparency-log parsers (PROTOCOL §7) a witness, a monitor or a client runs on untrusted bytes; the
    /// first data byte picks one. Parsed ⇒ serialising and parsing again gives the same value (bundles: the same
    /// bytes); proofs of any shape verify or not, without trapping.
    enum LogParser: UInt8, CaseIterable {
        case note, checkpoint, proof, witnessRequest, policy, bundle, merkle
    }

    /// One seed per parser: the C2SP examples.
    func logSeeds() -> [[UInt8]] {
        let checkpoint =
            "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
        let note =
            checkpoint
            + "\n\u{2014} example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
        let seeds: [(LogParser, String)] = [
            (.note, note), (.checkpoint, checkpoint),
            (
                .proof,
                "c2sp.org/tlog-proof@v1\nextra AAEC\nindex 3\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n\n" + note
            ),
            (.witnessRequest, "old 20852014\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n\n" + note),
            (
                .policy,
                "log example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k\nquorum none\n# comment\n"
            ),
            (.bundle, "\u{0}\u{3}abc\u{0}\u{0}"),
            (.merkle, String(repeating: "\u{1}", count: 80)),
        ]
        return seeds.map { [Target.tlog.rawValue, $0.0.rawValue] + Array($0.1.utf8) }
    }

    func tlog(_ data: [UInt8]) throws(FuzzFinding) {
        guard let first = data.first else { return }
        let parser = LogParser.allCases[Int(first) % LogParser.allCases.count]
        let body = Array(data.dropFirst())
        let crypto = OpenSSLTrustCrypto()
        switch parser {
        case .note:
            guard let note = try? SignedNote(parsing: body) else { return }
            guard (try? SignedNote(parsing: note.bytes)) == note else { throw roundTrip(parser) }
            let key = try! VerifierKey(
                parsing: "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k", crypto: crypto)
            _ = try? note.verify([key], crypto: crypto)
        case .checkpoint:
            guard let checkpoint = try? Checkpoint(text: body) else { return }
            guard (try? Checkpoint(text: checkpoint.text)) == checkpoint else { throw roundTrip(parser) }
        case .proof:
            guard let proof = try? LogProof(parsing: body) else { return }
            guard (try? LogProof(parsing: proof.bytes)) == proof else { throw roundTrip(parser) }
        case .witnessRequest:
            guard let request = try? AddCheckpointRequest(parsing: body) else { return }
            guard (try? AddCheckpointRequest(parsing: request.bytes)) == request else { throw roundTrip(parser) }
        case .policy:
            guard let policy = try? LogPolicy(parsing: body, crypto: crypto) else { return }
            _ = policy.isQuorumMet(by: Set(policy.witnesses.map(\.name)))
        case .bundle:
            guard let entries = try? EntryBundle.decode(body) else { return }
            guard (try? EntryBundle.encode(entries)) == body else { throw roundTrip(parser) }
        case .merkle:
            merkle(body, crypto)
        }
    }

    /// Sizes and indices from the first 24 bytes, proof hashes from the rest: verification must only answer.
    private func merkle(_ body: [UInt8], _ crypto: OpenSSLTrustCrypto) {
        guard body.count >= 24 else { return }
        func integer(_ at: Int) -> Int {
            Int(truncatingIfNeeded: body[at..<(at + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1)
        }
        let hashes = stride(from: 24, to: body.count - 31, by: 32).map { Array(body[$0..<($0 + 32)]) }
        let hasher = MerkleHasher(crypto: crypto)
        let root = hashes.first ?? hasher.emptyRoot
        _ = hasher.verifyInclusion(leaf: root, index: integer(0), size: integer(8), proof: hashes, root: root)
        _ = hasher.verifyConsistency(
            oldSize: integer(8), newSize: integer(16), oldRoot: root, newRoot: root, proof: hashes)
    }

    private func roundTrip(_ parser: LogParser) -> FuzzFinding {
        FuzzFinding(.tlog, "\(parser): parsing what was serialised gives another value")
    }
}
