package dev.pinset;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.annotation.Nullable;

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
    @Nullable
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The body (empty for 304). */
    public byte[] body() {
        return body;
    }

    /** {@code max-age} of {@code Cache-Control} in seconds, or {@code null}. */
    @Nullable
    public Integer maxAge() {
        String value = header("cache-control");
        if (value == null) return null;
        for (String directive : value.split(",")) {
            String[] parts = directive.split("=", 2);
            if (parts.length == 2 && parts[0].trim().equalsIgnoreCase("max-age")) {
                String digits = parts[1].trim();
                // ASCII digits only (parseLong also takes other scripts' digits); a huge value is clamped later anyway.
                if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return null;
                }
                return (int) Math.min(Integer.MAX_VALUE, Long.parseLong(digits));
            }
        }
        return null;
    }
}
