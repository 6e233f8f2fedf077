import PinSetCore

/// The body of a C2SP tlog-witness `POST /add-checkpoint`: `old <size>`, the consistency proof lines, a blank
/// line, then the signed checkpoint.
public struct AddCheckpointRequest: Sendable, Equatable {
    /// The size of the checkpoint the log believes the witness has (0 if none).
    public let oldSize: Int
    /// The consistency proof from ``oldSize`` to the checkpoint's size (at most 63 hashes).
    public let consistencyProof: [TreeHash]
    /// The signed checkpoint.
    public let checkpoint: SignedNote

    /// Creates a request.
    public init(oldSize: Int, consistencyProof: [TreeHash], checkpoint: SignedNote) {
        self.oldSize = oldSize
        self.consistencyProof = consistencyProof
        self.checkpoint = checkpoint
    }

    /// Parses a request body.
    /// - Throws: ``LogErrorCode/malformed``.
    public init(parsing bytes: some Collection<UInt8>) throws(LogError) {
        let raw = Array(bytes)
        guard let blank = LogProof.firstBlankLine(raw) else {
            throw LogError(.malformed, "no blank line before the checkpoint")
        }
        let lines = NoteText.lines(raw[..<blank])
        guard let first = lines.first, let digits = NoteText.after("old ", in: first),
            let old = NoteText.decimal(digits)
        else {
            throw LogError(.malformed, "the first line is not \"old <size>\"")
        }
        guard lines.count - 1 <= MerkleHasher.maxProofLength else {
            throw LogError(.malformed, "more than 63 consistency proof lines")
        }
        var proof: [TreeHash] = []
        for line in lines.dropFirst() {
            guard let hash = NoteText.unbase64(line), hash.count == 32 else {
                throw LogError(.malformed, "a consistency proof line is not base64 of 32 bytes")
            }
            proof.append(hash)
        }
        self.init(oldSize: old, consistencyProof: proof, checkpoint: try SignedNote(parsing: raw[(blank + 2)...]))
    }

    /// The request body.
    public var bytes: [UInt8] {
        var text = "old \(oldSize)\n"
        for hash in consistencyProof { text += NoteText.base64(hash) + "\n" }
        text += "\n"
        return Array(text.utf8) + checkpoint.bytes
    }
}

extension AddCheckpointRequest {
    /// The cosignatures in a witness's `200` answer to this request that verify under `witness` (C2SP
    /// tlog-witness: the client ignores lines of unknown keys and keeps the valid ones).
    /// - Throws: ``LogErrorCode/malformed`` for a body that is not signature lines, ``LogErrorCode/badSignature``
    ///   for a line of the witness's key that does not verify, ``LogErrorCode/unsigned`` when none of its does.
    public func cosignatures(inResponse body: some Collection<UInt8>, witness: VerifierKey, crypto: any TrustCrypto)
        throws(LogError) -> [NoteSignature]
    {
        let text = String(decoding: Array(body), as: UTF8.self)
        guard text.hasSuffix("\n") else { throw LogError(.malformed, "a witness answer ends with a newline") }
        var lines: [NoteSignature] = []
        for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(try NoteSignature(line: line))
        }
        let mine = lines.filter { $0.name == witness.name && $0.keyID == witness.keyID }
        guard !(try SignedNote(text: checkpoint.text, signatures: mine).verify([witness], crypto: crypto)).isEmpty
        else {
            throw LogError(.unsigned, "the answer has no cosignature of \(witness.name)")
        }
        return mine
    }
}
