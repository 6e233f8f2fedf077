package dev.pinset;

import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import dev.pinset.internal.HostNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/** The signed payload of a pin document (PROTOCOL §2): the pins of one host and its policy. Immutable. */
public final class PinSet {
    /** The most pins a set holds. */
    public static final int MAX_PINS = 64;

    /** Why a payload is not a valid pin set. */
    public static final class FormatException extends Exception {
        private static final long serialVersionUID = 1L;

        FormatException(String message) {
            super(message);
        }
    }

    private final String host;
    private final long version;
    private final long issuedAt;
    private final long expiresAt;
    private final boolean includeSubdomains;
    private final boolean enforce;
    private final List<Pin> pins;
    private final String reportUri;

    private PinSet(Map<String, Object> map) throws FormatException {
        host = string(map, "host", true);
        version = integer(map, "version");
        issuedAt = time(map, "issuedAt", true);
        expiresAt = time(map, "expiresAt", true);
        includeSubdomains = bool(map, "includeSubdomains");
        enforce = bool(map, "enforce");
        Object list = map.get("pins");
        if (!(list instanceof List)) throw new FormatException("pins is missing or not an array");
        List<Pin> decoded = new ArrayList<>();
        for (Object pin : (List<?>) list) decoded.add(Pin.decode(pin));
        pins = Collections.unmodifiableList(decoded);
        reportUri = string(map, "reportUri", false);
    }

    /** Decodes a payload from JSON bytes and checks its structure (host form, version ≥ 1, each pin's fields). */
    public static PinSet decode(byte[] json) throws FormatException {
        Map<String, Object> map;
        try {
            map = Json.parseObject(json);
        } catch (Json.ParseException e) {
            throw new FormatException("not a JSON object: " + e.getMessage());
        }
        PinSet set = new PinSet(map);
        String normalized;
        try {
            normalized = HostNames.normalize(set.host);
        } catch (HostNames.InvalidHostException e) {
            normalized = null;
        }
        if (!set.host.equals(normalized)) {
            throw new FormatException("payload host \"" + clip(set.host, 80) + "\" is not a normalised DNS name");
        }
        if (set.version < 1) throw new FormatException("payload version must be at least 1");
        if (set.pins.size() > MAX_PINS) throw new FormatException("a set holds at most " + MAX_PINS + " pins");
        return set;
    }

    /** The host the set is for. */
    public String host() {
        return host;
    }

    /** The version, at least 1. */
    public long version() {
        return version;
    }

    /** When the document was signed, epoch milliseconds. */
    public long issuedAt() {
        return issuedAt;
    }

    /** When the document stops being fresh, epoch milliseconds. */
    public long expiresAt() {
        return expiresAt;
    }

    /** Whether the set also covers every name below {@link #host()}. */
    public boolean includeSubdomains() {
        return includeSubdomains;
    }

    /** {@code false}: report-only (failures are reported, connections are not blocked). */
    public boolean enforce() {
        return enforce;
    }

    /** The pins; empty means "no longer pinned". */
    public List<Pin> pins() {
        return pins;
    }

    /** Where clients POST failure reports, or {@code null}. */
    @Nullable
    public String reportUri() {
        return reportUri;
    }

    static String clip(String text, int length) {
        return text.length() <= length ? text : text.substring(0, length);
    }

    static String string(Map<?, ?> map, String key, boolean required) throws FormatException {
        Object value = map.get(key);
        if (value == null || value == Json.NULL) {
            if (required) throw new FormatException(key + " is missing");
            return null;
        }
        if (!(value instanceof String)) throw new FormatException(key + " is not a string");
        return (String) value;
    }

    static Long time(Map<?, ?> map, String key, boolean required) throws FormatException {
        String text = string(map, key, required);
        if (text == null) return null;
        Long millis = Rfc3339.parse(text);
        if (millis == null) throw new FormatException("\"" + clip(text, 40) + "\" is not an RFC 3339 time");
        return millis;
    }

    static long integer(Map<?, ?> map, String key) throws FormatException {
        Object value = map.get(key);
        if (value instanceof Long) return (Long) value;
        if (value instanceof Double) {
            double d = (Double) value;
            if (d == Math.rint(d) && Math.abs(d) < 9.0e15) return (long) d;
        }
        throw new FormatException(key + " is missing or not an integer");
    }

    static boolean bool(Map<?, ?> map, String key) throws FormatException {
        Object value = map.get(key);
        if (!(value instanceof Boolean)) throw new FormatException(key + " is missing or not a boolean");
        return (Boolean) value;
    }
}
