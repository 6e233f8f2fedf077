package dev.pinset.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict RFC 8259 JSON reader, small enough to audit: objects become {@code Map<String, Object>}, arrays
 * {@code List<Object>}, numbers {@code Long} (integers) or {@code Double}, plus {@code String}, {@code Boolean}
 * and {@link #NULL}; a repeated member keeps its first value. No reflection, no dependency (Android has org.json, a
 * server JVM does not).
 */
public final class Json {
    /** The JSON {@code null} value. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** Thrown for anything that is not one valid JSON text. */
    public static final class ParseException extends Exception {
        private static final long serialVersionUID = 1L;

        ParseException(String message) {
            super(message);
        }
    }

    private static final int MAX_DEPTH = 64;
    private final String text;
    private int index;

    private Json(String text) {
        this.text = text;
    }

    /** Parses UTF-8 bytes holding exactly one JSON value (blanks around it allowed). */
    public static Object parse(byte[] utf8) throws ParseException {
        return parse(Utf8.decodeStrict(utf8));
    }

    /** Parses a string holding exactly one JSON value. */
    public static Object parse(String text) throws ParseException {
        if (text == null) throw new ParseException("not UTF-8");
        Json json = new Json(text);
        json.skipBlanks();
        Object value = json.value(0);
        json.skipBlanks();
        if (json.index != text.length()) throw new ParseException("trailing characters at " + json.index);
        return value;
    }

    /** Parses and requires an object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(byte[] utf8) throws ParseException {
        Object value = parse(utf8);
        if (!(value instanceof Map)) throw new ParseException("not a JSON object");
        return (Map<String, Object>) value;
    }

    private Object value(int depth) throws ParseException {
        if (depth > MAX_DEPTH) throw new ParseException("nested too deeply");
        if (index >= text.length()) throw new ParseException("unexpected end");
        char c = text.charAt(index);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", NULL);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw new ParseException("unexpected character at " + index);
        }
    }

    private Object literal(String word, Object value) throws ParseException {
        if (!text.startsWith(word, index)) throw new ParseException("bad literal at " + index);
        index += word.length();
        return value;
    }

    private Map<String, Object> object(int depth) throws ParseException {
        Map<String, Object> result = new LinkedHashMap<>();
        index++;
        skipBlanks();
        if (peek() == '}') {
            index++;
            return result;
        }
        while (true) {
            skipBlanks();
            if (peek() != '"') throw new ParseException("expected a member name at " + index);
            String key = string();
            skipBlanks();
            if (peek() != ':') throw new ParseException("expected ':' at " + index);
            index++;
            skipBlanks();
            // PROTOCOL §5/§6.2 step 1 (issue 35): no object in a document repeats a member name (parsers disagree on
            // which one wins), so a repeated one is malformed, as in the Swift client (Tests/Vectors).
            if (result.containsKey(key)) throw new ParseException("the member \"" + (key.length() <= 40 ? key : key.substring(0, 40)) + "\" is repeated");
            result.put(key, value(depth + 1));
            skipBlanks();
            char c = peek();
            index++;
            if (c == '}') return result;
            if (c != ',') throw new ParseException("expected ',' or '}' at " + (index - 1));
        }
    }

    private List<Object> array(int depth) throws ParseException {
        List<Object> result = new ArrayList<>();
        index++;
        skipBlanks();
        if (peek() == ']') {
            index++;
            return result;
        }
        while (true) {
            skipBlanks();
            result.add(value(depth + 1));
            skipBlanks();
            char c = peek();
            index++;
            if (c == ']') return result;
            if (c != ',') throw new ParseException("expected ',' or ']' at " + (index - 1));
        }
    }

    private String string() throws ParseException {
        index++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (index >= text.length()) throw new ParseException("unterminated string");
            char c = text.charAt(index++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw new ParseException("control character in a string");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (index >= text.length()) throw new ParseException("unterminated escape");
            char e = text.charAt(index++);
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    char code = hex4();
                    if (Character.isLowSurrogate(code)) throw new ParseException("a lone low surrogate escape");
                    if (Character.isHighSurrogate(code)) {
                        // Only as the first half of a pair written as two escapes, as the Swift client requires.
                        if (!text.startsWith("\\u", index)) throw new ParseException("a lone high surrogate escape");
                        index += 2;
                        char low = hex4();
                        if (!Character.isLowSurrogate(low)) throw new ParseException("a lone high surrogate escape");
                        out.append(code);
                        code = low;
                    }
                    out.append(code);
                    break;
                default:
                    throw new ParseException("bad escape \\" + e);
            }
        }
    }

    private char hex4() throws ParseException {
        if (index + 4 > text.length()) throw new ParseException("short \\u escape");
        int code = 0;
        for (int i = 0; i < 4; i++) {
            char c = text.charAt(index++);
            int digit = c < 0x80 ? Character.digit(c, 16) : -1; // ASCII only: digit() also takes other scripts' digits
            if (digit < 0) throw new ParseException("bad \\u escape");
            code = code * 16 + digit;
        }
        return (char) code;
    }

    private Object number() throws ParseException {
        int start = index;
        if (peek() == '-') index++;
        if (peek() == '0') {
            index++;
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') index++;
        } else {
            throw new ParseException("bad number at " + start);
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            index++;
            int digits = index;
            while (peek() >= '0' && peek() <= '9') index++;
            if (index == digits) throw new ParseException("bad fraction at " + start);
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            index++;
            if (peek() == '+' || peek() == '-') index++;
            int digits = index;
            while (peek() >= '0' && peek() <= '9') index++;
            if (index == digits) throw new ParseException("bad exponent at " + start);
        }
        String literal = text.substring(start, index);
        if (integral) {
            try {
                return Long.parseLong(literal);
            } catch (NumberFormatException tooBig) {
                return Double.parseDouble(literal);
            }
        }
        return Double.parseDouble(literal);
    }

    private char peek() {
        return index < text.length() ? text.charAt(index) : '\0';
    }

    private void skipBlanks() {
        while (index < text.length()) {
            char c = text.charAt(index);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            index++;
        }
    }

    /** Writes {@code value} as a JSON string literal (quotes included). */
    public static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
