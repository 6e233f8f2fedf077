package dev.pinset.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The byte-level rules C2SP signed-note, tlog-checkpoint and tlog-proof share, as the Swift {@code NoteText}. */
public final class NoteText {
    public static final byte NEWLINE = 0x0A;

    private NoteText() {}

    /** A key name: non-empty, without {@code +} or whitespace. */
    public static boolean isValidKeyName(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); ) {
            int c = name.codePointAt(i);
            if (c == '+' || (c >= 0x09 && c <= 0x0D) || Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                return false;
            }
            i += Character.charCount(c);
        }
        return true;
    }

    /** UTF-8 without control characters other than newline. */
    public static boolean isCleanText(byte[] bytes) {
        boolean ascii = true;
        for (byte b : bytes) {
            if ((b >= 0 && b < 0x20 && b != NEWLINE) || b == 0x7F) return false;
            if (b < 0) ascii = false;
        }
        return ascii || isUtf8(bytes);
    }

    public static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** A decimal of 1 to 19 ASCII digits without a leading zero that fits a {@code long}, or {@code -1}. */
    public static long decimal(String text) {
        int length = text.length();
        if (length == 0 || length > 19 || (length > 1 && text.charAt(0) == '0')) return -1;
        long value = 0;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') return -1;
            if (value > (Long.MAX_VALUE - (c - '0')) / 10) return -1;
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /** The lines of {@code bytes[from, to)} split at each newline, empty ones kept. */
    public static List<String> lines(byte[] bytes, int from, int to) {
        List<String> lines = new ArrayList<>();
        int start = from;
        for (int i = from; i < to; i++) {
            if (bytes[i] == NEWLINE) {
                lines.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        lines.add(new String(bytes, start, to - start, StandardCharsets.UTF_8));
        return lines;
    }

    /** Padded standard base64, or {@code null}. */
    public static byte[] unbase64(String text) {
        return text.isEmpty() ? new byte[0] : Base64Codec.decodeStandard(text);
    }

    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
