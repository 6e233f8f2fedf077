package dev.pinset;

import dev.pinset.internal.NoteText;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The body of a C2SP tlog-checkpoint: origin line, tree size, base64 root hash, then optional extension lines. */
final class Checkpoint {
    private final String origin;
    private final long size;
    private final byte[] rootHash;
    private final List<String> extensions;

    private Checkpoint(String origin, long size, byte[] rootHash, List<String> extensions) {
        this.origin = origin;
        this.size = size;
        this.rootHash = rootHash;
        this.extensions = Collections.unmodifiableList(extensions);
    }

    /** Parses a checkpoint body (a signed note's text). */
    public static Checkpoint parse(byte[] text) throws LogError {
        if (text.length == 0 || text[text.length - 1] != NoteText.NEWLINE) {
            throw new LogError(LogError.Code.MALFORMED, "a checkpoint ends with a newline");
        }
        List<String> lines = NoteText.lines(text, 0, text.length - 1);
        if (lines.size() < 3) throw new LogError(LogError.Code.MALFORMED, "a checkpoint has an origin, a size and a root hash");
        long size = NoteText.decimal(lines.get(1));
        if (size < 0) throw new LogError(LogError.Code.MALFORMED, "the checkpoint size is not a decimal without leading zeroes");
        byte[] root = NoteText.unbase64(lines.get(2));
        if (root == null || root.length != 32) throw new LogError(LogError.Code.MALFORMED, "the checkpoint root is not base64 of 32 bytes");
        if (lines.get(0).isEmpty()) throw new LogError(LogError.Code.MALFORMED, "a checkpoint origin is one non-empty line");
        List<String> extensions = new ArrayList<>(lines.subList(3, lines.size()));
        for (String line : extensions) {
            if (line.isEmpty()) throw new LogError(LogError.Code.MALFORMED, "extension lines are non-empty lines");
        }
        return new Checkpoint(lines.get(0), size, root, extensions);
    }

    /** The log's name. */
    public String origin() {
        return origin;
    }

    /** The tree size. */
    public long size() {
        return size;
    }

    /** The RFC 6962 root hash of the first {@link #size()} entries. */
    public byte[] rootHash() {
        return rootHash.clone();
    }

    /** The extension lines, if any. */
    public List<String> extensions() {
        return extensions;
    }
}
