package dev.pinset;

import java.io.IOException;
import java.util.Map;

/**
 * The HTTP client the updater fetches documents with. {@link UrlConnectionTransport} is the default; an app may
 * pass one over its own OkHttp client (not the pinned one: documents are signed, so the transport needs standard
 * validation only).
 */
public interface PinSetTransport {
    /**
     * Performs {@code GET url} with {@code headers}. Throws only for transport failures (DNS, TCP, TLS, timeout);
     * HTTP error statuses are returned.
     */
    TransportResponse get(String url, Map<String, String> headers) throws IOException;
}
