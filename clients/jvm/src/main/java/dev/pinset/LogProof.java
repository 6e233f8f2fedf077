package dev.pinset;

import dev.pinset.internal.MerkleHasher;
import dev.pinset.internal.NoteText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import javax.annotation.Nullable;

/**
 * A C2SP tlog-proof ({@code c2sp.org/tlog-proof@v1}): optional extra data, the leaf index, the inclusion proof
 * and the signed checkpoint it leads to (PROTOCOL §7.3).
 */
final class LogProof {
    /** The first line of every proof. */
    public static final String HEADER = "c2sp.org/tlog-proof@v1";

    private final byte[] extra;
    private final long index;
    private final List<byte[]> inclusionProof;
    private final SignedNote checkpoint;

    private LogProof(byte[] extra, long index, List<byte[]> inclusionProof, SignedNote checkpoint) {
        this.extra = extra;
        this.index = index;
        this.inclusionProof = Collections.unmodifiableList(inclusionProof);
        this.checkpoint = checkpoint;
    }

    /** Parses a proof. */
    public static LogProof parse(byte[] raw) throws LogError {
        if (raw.length > SignedNote.MAX_BYTES + 4096) throw malformed("the proof is too large");
        int blank = -1;
        for (int i = 0; i + 1 < raw.length; i++) {
            if (raw[i] == NoteText.NEWLINE && raw[i + 1] == NoteText.NEWLINE) {
                blank = i;
                break;
            }
        }
        if (blank < 0) throw malformed("a proof has a blank line before its checkpoint");
        List<String> lines = NoteText.lines(raw, 0, blank);
        if (!lines.get(0).equals(HEADER)) throw malformed("a proof starts with " + HEADER);
        int at = 1;
        byte[] extra = null;
        if (at < lines.size() && lines.get(at).startsWith("extra ")) {
            extra = NoteText.unbase64(lines.get(at).substring(6));
            if (extra == null) throw malformed("the extra line is not base64");
            at++;
        }
        long index = at < lines.size() && lines.get(at).startsWith("index ") ? NoteText.decimal(lines.get(at).substring(6)) : -1;
        if (index < 0) throw malformed("a proof has an index line");
        at++;
        if (lines.size() - at > MerkleHasher.MAX_PROOF_LENGTH) throw malformed("the inclusion proof is too long");
        List<byte[]> path = new ArrayList<>();
        for (String line : lines.subList(at, lines.size())) {
            byte[] hash = NoteText.unbase64(line);
            if (hash == null || hash.length != 32) throw malformed("an inclusion proof line is not base64 of 32 bytes");
            path.add(hash);
        }
        return new LogProof(extra, index, path, SignedNote.parse(Arrays.copyOfRange(raw, blank + 2, raw.length)));
    }

    private static LogError malformed(String detail) {
        return new LogError(LogError.Code.MALFORMED, detail);
    }

    /** The extra data, or {@code null}. */
    @Nullable
    public byte[] extra() {
        return extra == null ? null : extra.clone();
    }

    /** The leaf index of the entry. */
    public long index() {
        return index;
    }

    /** The inclusion proof, leaf side first. */
    public List<byte[]> inclusionProof() {
        return inclusionProof;
    }

    /** The signed checkpoint the proof leads to. */
    public SignedNote checkpoint() {
        return checkpoint;
    }
}
