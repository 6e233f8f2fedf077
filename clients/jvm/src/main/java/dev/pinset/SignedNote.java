package dev.pinset;

import dev.pinset.internal.NoteText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A C2SP signed note: a text ending in a newline, a blank line, then one or more signature lines. Parsing keeps
 * the exact bytes; {@link #verify} checks the signatures of known keys (one that fails refuses the whole note) and
 * ignores the others.
 */
final class SignedNote {
    /** The most signature lines accepted. */
    public static final int MAX_SIGNATURES = 64;
    /** The largest note accepted, in bytes. */
    public static final int MAX_BYTES = 128 * 1024;

    private final byte[] bytes;
    private final byte[] text;
    private final List<NoteSignature> signatures;

    private SignedNote(byte[] bytes, byte[] text, List<NoteSignature> signatures) {
        this.bytes = bytes;
        this.text = text;
        this.signatures = Collections.unmodifiableList(signatures);
    }

    /** Parses a note; the text ends at its last blank line. */
    public static SignedNote parse(byte[] raw) throws LogError {
        if (raw.length > MAX_BYTES) throw malformed("the note is over " + MAX_BYTES + " bytes");
        if (!NoteText.isCleanText(raw)) throw malformed("the note is not UTF-8 text without control characters");
        if (raw.length == 0 || raw[raw.length - 1] != NoteText.NEWLINE) throw malformed("the note does not end with a newline");
        int split = -1;
        for (int i = raw.length - 2; i >= 0; i--) {
            if (raw[i] == NoteText.NEWLINE && raw[i + 1] == NoteText.NEWLINE) {
                split = i;
                break;
            }
        }
        if (split < 0) throw malformed("the note has no blank line before its signatures");
        byte[] text = Arrays.copyOf(raw, split + 1);
        List<String> lines = NoteText.lines(raw, split + 2, raw.length);
        lines = lines.subList(0, lines.size() - 1);
        if (lines.isEmpty()) throw malformed("the note has no signature");
        if (lines.size() > MAX_SIGNATURES) throw malformed("the note has over " + MAX_SIGNATURES + " signatures");
        List<NoteSignature> signatures = new ArrayList<>();
        for (String line : lines) signatures.add(NoteSignature.parse(line));
        return new SignedNote(raw.clone(), text, signatures);
    }

    private static LogError malformed(String detail) {
        return new LogError(LogError.Code.MALFORMED, detail);
    }

    /** The note as received (text, blank line, signatures). */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The signed text, its final newline included. */
    public byte[] text() {
        return text.clone();
    }

    /** The signature lines, in order. */
    public List<NoteSignature> signatures() {
        return signatures;
    }

    /**
     * The keys of {@code keys} whose signature verifies, each once, with the cosignature timestamps (0 for a plain
     * Ed25519 signature). Signatures whose name and key ID match no key are ignored.
     *
     * @throws LogError {@link LogError.Code#BAD_SIGNATURE} if the signature of a known key does not verify
     */
    public List<VerifiedSignature> verify(List<VerifierKey> keys, Ed25519Verifier ed25519) throws LogError {
        List<VerifiedSignature> verified = new ArrayList<>();
        for (NoteSignature signature : signatures) {
            VerifierKey key = null;
            for (VerifierKey candidate : keys) {
                if (candidate.name().equals(signature.name()) && candidate.keyId() == signature.keyId()) {
                    key = candidate;
                    break;
                }
            }
            if (key == null) continue;
            Long timestamp = key.verify(signature, text, ed25519);
            if (timestamp == null) throw new LogError(LogError.Code.BAD_SIGNATURE, "the signature of " + key.name() + " does not verify");
            boolean seen = false;
            for (VerifiedSignature done : verified) seen |= done.key().equals(key);
            if (!seen) verified.add(new VerifiedSignature(key, timestamp));
        }
        return verified;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SignedNote && Arrays.equals(bytes, ((SignedNote) other).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
}
