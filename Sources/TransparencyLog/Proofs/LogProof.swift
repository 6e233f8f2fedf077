/// A C2SP tlog-proof (`c2sp.org/tlog-proof@v1`): a leaf index, its inclusion proof, and the signed checkpoint
/// (with cosignatures) it leads to; optionally opaque, unauthenticated extra data.
public struct LogProof: Sendable, Equatable {
    /// The format's first line.
    public static let header = "c2sp.org/tlog-proof@v1"

    /// Opaque extra data (`extra` line); never trusted.
    public let extra: [UInt8]?
    /// The zero-based leaf index.
    public let index: Int
    /// The inclusion proof, from the leaf's sibling up to the root's child.
    public let inclusionProof: [TreeHash]
    /// The signed checkpoint, verbatim.
    public let checkpoint: SignedNote

    /// Creates a proof.
    public init(extra: [UInt8]? = nil, index: Int, inclusionProof: [TreeHash], checkpoint: SignedNote) {
        self.extra = extra
        self.index = index
        self.inclusionProof = inclusionProof
        self.checkpoint = checkpoint
    }

    /// Parses a proof.
    /// - Throws: ``LogErrorCode/malformed``.
    public init(parsing bytes: some Collection<UInt8>) throws(LogError) {
        let raw = Array(bytes)
        guard raw.count <= SignedNote.maxBytes + 4096 else { throw LogError(.malformed, "the proof is too large") }
        guard let blank = Self.firstBlankLine(raw) else {
            throw LogError(.malformed, "a proof has a blank line before its checkpoint")
        }
        var lines = NoteText.lines(raw[..<blank])[...]
        guard let first = lines.first, first.elementsEqual(Self.header.utf8) else {
            throw LogError(.malformed, "a proof starts with \(Self.header)")
        }
        lines = lines.dropFirst()
        var extra: [UInt8]? = nil
        if let line = lines.first, let encoded = NoteText.after("extra ", in: line) {
            guard let data = NoteText.unbase64(encoded) else {
                throw LogError(.malformed, "the extra line is not base64")
            }
            extra = data
            lines = lines.dropFirst()
        }
        guard let line = lines.first, let digits = NoteText.after("index ", in: line),
            let index = NoteText.decimal(digits)
        else {
            throw LogError(.malformed, "a proof has an index line")
        }
        lines = lines.dropFirst()
        guard lines.count <= MerkleHasher.maxProofLength else {
            throw LogError(.malformed, "the inclusion proof is too long")
        }
        var path: [TreeHash] = []
        for line in lines {
            guard let hash = NoteText.unbase64(line), hash.count == 32 else {
                throw LogError(.malformed, "an inclusion proof line is not base64 of 32 bytes")
            }
            path.append(hash)
        }
        self.init(
            extra: extra, index: index, inclusionProof: path, checkpoint: try SignedNote(parsing: raw[(blank + 2)...]))
    }

    /// The proof's text.
    public var bytes: [UInt8] {
        var text = Self.header + "\n"
        if let extra { text += "extra \(NoteText.base64(extra))\n" }
        text += "index \(index)\n"
        for hash in inclusionProof { text += NoteText.base64(hash) + "\n" }
        text += "\n"
        return Array(text.utf8) + checkpoint.bytes
    }

    /// The index of the first `\n` of the first `\n\n`.
    static func firstBlankLine(_ raw: [UInt8]) -> Int? {
        guard raw.count >= 2 else { return nil }
        for i in 0..<(raw.count - 1) where raw[i] == 0x0A && raw[i + 1] == 0x0A { return i }
        return nil
    }
}
