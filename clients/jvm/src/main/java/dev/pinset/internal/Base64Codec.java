package dev.pinset.internal;

import java.io.ByteArrayOutputStream;

/**
 * Base64 as the protocol uses it: unpadded base64url in the JWS (RFC 7515 §2) and padded standard base64 for pins
 * (PROTOCOL §1). Written out because {@code java.util.Base64} needs Android API 26 and {@code android.util.Base64}
 * does not exist on a server JVM. The rules match the Swift client: the unused low bits of a last group are not
 * checked.
 */
public final class Base64Codec {
    private static final char[] URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();
    private static final char[] STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private Base64Codec() {}

    /** Unpadded base64url; {@code null} for a character outside the alphabet (padding included) or a bad length. */
    public static byte[] decodeUrl(String text) {
        return decodeUnpadded(text, 0, text.length(), '-', '_');
    }

    /**
     * Padded standard base64 (length a multiple of 4, at most {@code ==} at the end); {@code null} for anything
     * else.
     */
    public static byte[] decodeStandard(String text) {
        int length = text.length();
        if (length == 0 || length % 4 != 0) return null;
        int padding = 0;
        if (text.charAt(length - 1) == '=') padding = text.charAt(length - 2) == '=' ? 2 : 1;
        return decodeUnpadded(text, 0, length - padding, '+', '/');
    }

    /** Unpadded base64url of {@code bytes}. */
    public static String encodeUrl(byte[] bytes) {
        return encode(bytes, URL, false);
    }

    /** Padded standard base64 of {@code bytes}. */
    public static String encodeStandard(byte[] bytes) {
        return encode(bytes, STD, true);
    }

    private static byte[] decodeUnpadded(String text, int start, int end, char c62, char c63) {
        int count = end - start;
        if (count % 4 == 1) return null;
        ByteArrayOutputStream out = new ByteArrayOutputStream(count / 4 * 3 + 2);
        int accumulator = 0;
        int pending = 0;
        for (int i = start; i < end; i++) {
            int value = sextet(text.charAt(i), c62, c63);
            if (value < 0) return null;
            accumulator = accumulator << 6 | value;
            if (++pending == 4) {
                out.write(accumulator >> 16);
                out.write(accumulator >> 8);
                out.write(accumulator);
                accumulator = 0;
                pending = 0;
            }
        }
        if (pending == 2) {
            out.write(accumulator >> 4);
        } else if (pending == 3) {
            out.write(accumulator >> 10);
            out.write(accumulator >> 2);
        }
        return out.toByteArray();
    }

    private static int sextet(char c, char c62, char c63) {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == c62) return 62;
        if (c == c63) return 63;
        return -1;
    }

    private static String encode(byte[] bytes, char[] alphabet, boolean pad) {
        StringBuilder out = new StringBuilder((bytes.length + 2) / 3 * 4);
        int i = 0;
        for (; i + 2 < bytes.length; i += 3) {
            int n = (bytes[i] & 0xFF) << 16 | (bytes[i + 1] & 0xFF) << 8 | (bytes[i + 2] & 0xFF);
            out.append(alphabet[n >> 18 & 63]).append(alphabet[n >> 12 & 63]);
            out.append(alphabet[n >> 6 & 63]).append(alphabet[n & 63]);
        }
        int rest = bytes.length - i;
        if (rest == 1) {
            int n = (bytes[i] & 0xFF) << 16;
            out.append(alphabet[n >> 18 & 63]).append(alphabet[n >> 12 & 63]);
            if (pad) out.append("==");
        } else if (rest == 2) {
            int n = (bytes[i] & 0xFF) << 16 | (bytes[i + 1] & 0xFF) << 8;
            out.append(alphabet[n >> 18 & 63]).append(alphabet[n >> 12 & 63]).append(alphabet[n >> 6 & 63]);
            if (pad) out.append('=');
        }
        return out.toString();
    }
}
