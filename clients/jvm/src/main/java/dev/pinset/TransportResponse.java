package dev.pinset;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** An HTTP answer as the updater needs it: status, header fields (names lowercased) and body. */
public final class TransportResponse {
    private final int status;
    private final Map<String, String> headers = new HashMap<>();
    private final byte[] body;

    /** Creates a response; header names are lowercased. */
    public TransportResponse(int status, Map<String, String> headers, byte[] body) {
        this.status = status;
        for (Map.Entry<String, String> entry : headers.entrySet()) {
            if (entry.getKey() != null) this.headers.putIfAbsent(entry.getKey().toLowerCase(Locale.ROOT), entry.getValue());
        }
        this.body = body == null ? new byte[0] : body;
    }

    /** The status code. */
    public int status() {
        return status;
    }

    /** A header field by lowercase name, or {@code null}. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The body (empty for 304). */
    public byte[] body() {
        return body;
    }

    /** {@code max-age} of {@code Cache-Control} in seconds, or {@code null}. */
    public Integer maxAge() {
        String value = header("cache-control");
        if (value == null) return null;
        for (String directive : value.split(",")) {
            String[] parts = directive.split("=", 2);
            if (parts.length == 2 && parts[0].trim().equalsIgnoreCase("max-age")) {
                String digits = parts[1].trim();
                // ASCII digits only (parseInt also takes other scripts' digits), at most 9 of them.
                if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return null;
                }
                return Integer.parseInt(digits);
            }
        }
        return null;
    }
}
