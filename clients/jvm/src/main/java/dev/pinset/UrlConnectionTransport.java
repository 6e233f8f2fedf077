package dev.pinset;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * Fetches with {@link HttpURLConnection} (every JVM and Android), reading at most 64 KiB + 1 bytes so that an
 * oversized body is refused without being read. HTTPS uses the given socket factory (default: the platform's
 * standard validation), never a pinned one.
 */
final class UrlConnectionTransport implements PinSetTransport {
    private final SSLSocketFactory socketFactory;
    private final int timeoutMillis;

    /** Platform TLS defaults, 10 s connect and read timeouts. */
    public UrlConnectionTransport() {
        this(null, 10_000);
    }

    /** A transport using {@code socketFactory} for HTTPS ({@code null}: the platform default). */
    public UrlConnectionTransport(SSLSocketFactory socketFactory, int timeoutMillis) {
        this.socketFactory = socketFactory;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public TransportResponse get(String url, Map<String, String> headers) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
        try {
            if (socketFactory != null && connection instanceof HttpsURLConnection) {
                ((HttpsURLConnection) connection).setSSLSocketFactory(socketFactory);
            }
            connection.setConnectTimeout(timeoutMillis);
            connection.setReadTimeout(timeoutMillis);
            connection.setUseCaches(false);
            for (Map.Entry<String, String> header : headers.entrySet()) {
                connection.setRequestProperty(header.getKey(), header.getValue());
            }
            int status = connection.getResponseCode();
            Map<String, String> fields = new HashMap<>();
            for (Map.Entry<String, List<String>> field : connection.getHeaderFields().entrySet()) {
                if (field.getKey() != null && !field.getValue().isEmpty()) {
                    fields.put(field.getKey(), field.getValue().get(0));
                }
            }
            InputStream stream = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            return new TransportResponse(status, fields, stream == null ? new byte[0] : readBounded(stream));
        } finally {
            connection.disconnect();
        }
    }

    /** Every byte of {@code in} (a file, so no bound). */
    static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int read; (read = in.read(buffer)) > 0; ) out.write(buffer, 0, read);
        return out.toByteArray();
    }

    static byte[] readBounded(InputStream stream) throws IOException {
        try (InputStream in = stream) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int limit = DocumentVerifier.MAX_BYTES + 1;
            int read;
            while (out.size() < limit && (read = in.read(buffer, 0, Math.min(buffer.length, limit - out.size()))) > 0) {
                out.write(buffer, 0, read);
            }
            return out.toByteArray();
        }
    }
}
