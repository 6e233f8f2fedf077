package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import dev.pinset.internal.HostNames;
import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;
import javax.annotation.Nullable;

/**
 * Posts pin failure reports in TrustKit's format (PROTOCOL §3) in the background, to the set's {@code reportUri},
 * falling back, when the set names none or it fails (transport error or a status other than 2xx), to the report
 * address the application configured ({@link Builder#reportUri}), else the pin server's {@code /reports}. A log fork
 * (PROTOCOL §7.4) goes to the application's address and to the configured pin server, never to a document's
 * {@code reportUri}.
 *
 * <p>Never through the pinned connection that just failed: reports go out on their own {@link HttpURLConnection}
 * with a socket factory of standard validation only, and a {@code reportUri} on the very host whose pins just
 * failed (or a name its set covers) is skipped for the fallback: that host may be the interceptor. An identical
 * report is sent at most once per interval (default 24 h), like TrustKit.
 */
public final class PinFailureReporter {
    /** What became of one report. */
    public enum Outcome {
        /** Posted to the set's reportUri and answered 2xx. */
        SENT,
        /** Posted to the fallback (the reportUri was missing, failed, or is the failing host) and answered 2xx. */
        SENT_TO_FALLBACK,
        /** An identical report went out less than the interval ago. */
        RATE_LIMITED,
        /** No http(s) destination. */
        NO_REPORT_URI,
        /** Every destination tried failed; the rate limit is lifted. */
        FAILED
    }

    /**
     * Makes a {@link PinFailureReporter}: {@link PinFailureReporter#builder()}, the setters whose defaults do not suit,
     * then {@link #build()}. Every setter returns this builder; none takes {@code null}.
     */
    public static final class Builder {
        @Nullable private String reportUri;
        @Nullable private SSLSocketFactory socketFactory;
        private long intervalMillis = 86_400_000L;

        private Builder() {}

        /**
         * The application's own report address (an http(s) URL, e.g. its security team's collector). Pin failures go
         * there when the set names no {@code reportUri} or it fails (before the pin server's {@code /reports}); log
         * forks always go there as well as to the pin server. Default: none.
         */
        public Builder reportUri(String uri) {
            if (httpUrl(Objects.requireNonNull(uri, "uri")) == null) {
                throw new IllegalArgumentException("the report address must be an http(s) URL");
            }
            this.reportUri = uri;
            return this;
        }

        /** The HTTPS socket factory, standard validation only, never the pinned one. Default: the platform's. */
        public Builder socketFactory(SSLSocketFactory factory) {
            this.socketFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** How long an identical report is suppressed, milliseconds (at least 0). Default 24 h, like TrustKit. */
        public Builder intervalMillis(long millis) {
            if (millis < 0) throw new IllegalArgumentException("intervalMillis must be at least 0");
            this.intervalMillis = millis;
            return this;
        }

        /** The reporter; its thread starts with the first report. */
        public PinFailureReporter build() {
            return new PinFailureReporter(reportUri, socketFactory, intervalMillis);
        }
    }

    @Nullable private final String reportUri;
    @Nullable private final SSLSocketFactory socketFactory;
    private final long intervalMillis;
    private final Map<String, Long> lastSent = new ConcurrentHashMap<>();
    private final ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "pinset-reporter");
        thread.setDaemon(true);
        return thread;
    });

    /** A reporter with no report address of its own, the platform's standard TLS validation and the 24 h window. */
    public PinFailureReporter() {
        this(null, null, 86_400_000L);
    }

    /**
     * @param socketFactory HTTPS socket factory with standard validation only ({@code null}: the platform default);
     *     never the pinned one
     * @param intervalMillis suppression window for identical reports
     * @deprecated positional {@code null}: use {@link #builder()}. Kept for one release.
     */
    @Deprecated
    public PinFailureReporter(@Nullable SSLSocketFactory socketFactory, long intervalMillis) {
        this(null, socketFactory, intervalMillis);
    }

    private PinFailureReporter(@Nullable String reportUri, @Nullable SSLSocketFactory socketFactory, long intervalMillis) {
        this.reportUri = reportUri;
        this.socketFactory = socketFactory;
        this.intervalMillis = intervalMillis;
    }

    /** A builder of a reporter. */
    public static Builder builder() {
        return new Builder();
    }

    /** The application's own report address ({@link Builder#reportUri}), or {@code null}. */
    @Nullable
    public String reportUri() {
        return reportUri;
    }

    /**
     * Queues the report of {@code failure} and returns at once; the future ends with the {@link Outcome}.
     *
     * @param fallbackReportUri the pin server's {@code /reports} ({@link PinSetUpdater} passes it): where the report
     *     goes when the set names no {@code reportUri} or it fails, unless the reporter has a {@link #reportUri()}
     */
    public Future<Outcome> submit(PinFailure failure, int port, @Nullable String fallbackReportUri) {
        String fallback = httpUrl(reportUri) != null ? httpUrl(reportUri) : httpUrl(fallbackReportUri);
        String reportUri = httpUrl(failure.reportUri());
        if (reportUri != null && coveredByFailingSet(reportUri, failure)) reportUri = null;
        String first = reportUri != null ? reportUri : fallback;
        if (first == null) return executor.submit(() -> Outcome.NO_REPORT_URI);
        String body = failure.reportJson(port);
        return send(first, fallback, first + " " + body.replaceFirst("\"date-time\":\"[^\"]*\"", ""), body);
    }

    /** Posts {@code body} to {@code first}, then to {@code fallback}, unless {@code key} went out within the interval. */
    private Future<Outcome> send(String first, String fallback, String key, String body) {
        long now = System.currentTimeMillis();
        Long last = lastSent.get(key);
        if (last != null && now - last < intervalMillis) return executor.submit(() -> Outcome.RATE_LIMITED);
        lastSent.put(key, now);
        if (lastSent.size() > 1024) {
            for (Iterator<Long> it = lastSent.values().iterator(); it.hasNext(); ) {
                if (now - it.next() >= intervalMillis) it.remove();
            }
        }
        String retry = fallback != null && !fallback.equals(first) ? fallback : null;
        boolean toFallback = first.equals(fallback);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return executor.submit(() -> {
            if (post(bytes, first)) return toFallback ? Outcome.SENT_TO_FALLBACK : Outcome.SENT;
            if (retry != null && post(bytes, retry)) return Outcome.SENT_TO_FALLBACK;
            lastSent.remove(key);
            return Outcome.FAILED;
        });
    }

    /**
     * The report of a transparency-log fork (PROTOCOL §7.4) seen on the proof of {@code document}
     * ({@code /pins/<host>} or {@code /trust/<n>}), the Swift client's {@code LogForkReport}:
     * {@code {"pinset-report":"log-fork","date-time","document","log-origin","kept-checkpoint","refused-checkpoint"}}
     * and PROTOCOL §3's {@code "origin","held","new","proof"} (the same values), both checkpoints the signed notes as
     * received; {@code proof} is the consistency proof that fails when the sizes differ (standard base64 of each
     * hash, from the smaller tree to the larger), else empty. Holds no secret.
     */
    static byte[] logForkJson(String document, LogDecision fork) {
        String origin;
        try {
            origin = Checkpoint.parse(fork.kept().text()).origin();
        } catch (LogError e) {
            origin = "";
        }
        return ("{\"pinset-report\":\"log-fork\",\"date-time\":" + Json.quote(Rfc3339.format(System.currentTimeMillis()))
                + ",\"document\":" + Json.quote(document) + ",\"log-origin\":" + Json.quote(origin)
                + ",\"kept-checkpoint\":" + Json.quote(new String(fork.kept().bytes(), StandardCharsets.UTF_8))
                + ",\"refused-checkpoint\":" + Json.quote(new String(fork.refused().bytes(), StandardCharsets.UTF_8))
                + ",\"origin\":" + Json.quote(origin)
                + ",\"held\":" + Json.quote(new String(fork.kept().bytes(), StandardCharsets.UTF_8))
                + ",\"new\":" + Json.quote(new String(fork.refused().bytes(), StandardCharsets.UTF_8))
                + ",\"proof\":" + proofJson(fork.proof()) + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** PROTOCOL §3's {@code proof}: each hash in standard padded base64, in the order given (smaller tree first). */
    private static String proofJson(List<byte[]> proof) {
        StringBuilder json = new StringBuilder("[");
        for (byte[] hash : proof) {
            if (json.length() > 1) json.append(',');
            json.append(Json.quote(Base64Codec.encodeStandard(hash)));
        }
        return json.append(']').toString();
    }

    /**
     * Queues a fork report ({@link #logForkJson}) and returns at once (PROTOCOL §7.4, as the Swift client's
     * {@code submit(_:pinServerReports:)}): it goes to the application's {@link #reportUri()} and to
     * {@code pinServerReports}, the configured pin server's {@code /reports}, never to a {@code reportUri} taken from
     * a document, which the party that forked the log may have written. The same fork is sent to each once per
     * interval.
     *
     * @return the outcome at the application's address, else at the pin server's ({@link Outcome#NO_REPORT_URI}
     *     when there is neither)
     */
    Future<Outcome> submitLogFork(byte[] report, @Nullable String pinServerReports) {
        List<String> destinations = new ArrayList<>();
        for (String url : new String[] {httpUrl(reportUri), httpUrl(pinServerReports)}) {
            if (url != null && !destinations.contains(url)) destinations.add(url);
        }
        if (destinations.isEmpty()) return executor.submit(() -> Outcome.NO_REPORT_URI);
        String body = new String(report, StandardCharsets.UTF_8);
        String timeless = body.replaceFirst("\"date-time\":\"[^\"]*\"", "");
        Future<Outcome> first = null;
        for (String destination : destinations) {
            Future<Outcome> outcome = send(destination, null, destination + " " + timeless, body);
            if (first == null) first = outcome;
        }
        return first;
    }

    /**
     * Queues a fork report to the application's {@link #reportUri()} and {@code fallbackReportUri} (the pin server's
     * {@code /reports}); {@code reportUri} is ignored (PROTOCOL §7.4: never a document's address).
     *
     * @deprecated a document's {@code reportUri} is never a fork's destination: the updater sends fork reports
     *     itself. Kept for one release.
     */
    @Deprecated
    public Future<Outcome> submitLogFork(byte[] report, @Nullable String reportUri, @Nullable String fallbackReportUri) {
        return submitLogFork(report, fallbackReportUri);
    }

    private static boolean coveredByFailingSet(String reportUri, PinFailure failure) {
        String host = URI.create(reportUri).getHost();
        if (host == null) return false;
        host = HostNames.normalizeLenient(host);
        String noted = failure.notedHost();
        return host.equals(failure.host()) || host.equals(noted)
                || (failure.set.includeSubdomains() && host.endsWith("." + noted));
    }

    private boolean post(byte[] body, String url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
            try {
                if (socketFactory != null && connection instanceof HttpsURLConnection) {
                    ((HttpsURLConnection) connection).setSSLSocketFactory(socketFactory);
                }
                connection.setConnectTimeout(10_000);
                connection.setReadTimeout(10_000);
                connection.setRequestMethod("POST");
                connection.setDoOutput(true);
                connection.setRequestProperty("Content-Type", "application/json");
                connection.setFixedLengthStreamingMode(body.length);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(body);
                }
                int status = connection.getResponseCode();
                return status >= 200 && status < 300;
            } finally {
                connection.disconnect();
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Nullable
    private static String httpUrl(@Nullable String text) {
        if (text == null) return null;
        try {
            String scheme = URI.create(text).getScheme();
            if (scheme == null) return null;
            scheme = scheme.toLowerCase(Locale.ROOT);
            return scheme.equals("https") || scheme.equals("http") ? text : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
