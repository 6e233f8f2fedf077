package dev.pinset;

import dev.pinset.internal.Base64Codec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** PinFailureReporter against a real loopback HTTP server: destinations, fallback, the report-host rule, rate limit. */
class ReporterTest {
    private HttpServer server;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private String base;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 8);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(exchange.getRequestURI().getPath() + " " + body);
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().equals("/broken") ? 500 : 204, -1);
            exchange.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static PinFailure failure(String host, String reportUri) throws Exception {
        String json = "{\"enforce\":true,\"expiresAt\":\"2026-06-08T00:00:00Z\",\"host\":\"example.com\","
                + "\"includeSubdomains\":true,\"issuedAt\":\"2026-05-31T23:00:00Z\",\"pins\":[{\"sha256\":\""
                + Base64Codec.encodeStandard(new byte[32]) + "\"}],"
                + (reportUri == null ? "" : "\"reportUri\":\"" + reportUri + "\",") + "\"version\":4}";
        PinSet set = PinSet.decode(json.getBytes(StandardCharsets.UTF_8));
        byte[] leaf = VectorTest.read("certs/leaf-b.der");
        return new PinFailure(host, "example.com", set, List.of(leaf), set.pins(), 1_780_000_000_000L, null);
    }

    @Test
    void reportsGoToTheReportUriElseToThePinServer() throws Exception {
        PinFailureReporter reporter = new PinFailureReporter(null, 86_400_000L);
        String fallback = base + "/reports";
        assertEquals(PinFailureReporter.Outcome.SENT,
                reporter.submit(failure("api.example.com", base + "/collector"), 443, fallback).get(10, TimeUnit.SECONDS));
        assertEquals(PinFailureReporter.Outcome.RATE_LIMITED,
                reporter.submit(failure("api.example.com", base + "/collector"), 443, fallback).get(10, TimeUnit.SECONDS));
        assertEquals(PinFailureReporter.Outcome.SENT_TO_FALLBACK,
                reporter.submit(failure("www.example.com", base + "/broken"), 443, fallback).get(10, TimeUnit.SECONDS));
        assertEquals(PinFailureReporter.Outcome.SENT_TO_FALLBACK,
                reporter.submit(failure("ftp.example.com", null), 8443, fallback).get(10, TimeUnit.SECONDS));
        assertEquals(PinFailureReporter.Outcome.NO_REPORT_URI,
                reporter.submit(failure("ftp.example.com", "mailto:x@example.com"), 443, null).get(10, TimeUnit.SECONDS));
        List<String> paths = new ArrayList<>();
        for (String line : received) paths.add(line.substring(0, line.indexOf(' ')));
        assertEquals(List.of("/collector", "/broken", "/reports", "/reports"), paths);
        String report = received.get(0);
        assertTrue(report.contains("\"hostname\":\"api.example.com\"") && report.contains("\"noted-hostname\":\"example.com\"")
                && report.contains("\"known-pins\":[\"pin-sha256=\\\"" + Base64Codec.encodeStandard(new byte[32]) + "\\\"\"]")
                && report.contains("-----BEGIN CERTIFICATE-----"), report);
        assertTrue(received.get(3).contains("\"port\":8443"), received.get(3));
    }

    /**
     * The app's own address ({@code builder().reportUri}, the Swift {@code fallbackReportURI}) comes before the pin
     * server for a set without a reportUri; a fork goes to it and to the pin server, never to the 3-argument call's
     * reportUri (a document's); a report address that is no http(s) URL is refused when the reporter is built.
     */
    @Test
    void theAppsOwnAddressTakesFallbacksAndEveryFork() throws Exception {
        PinFailureReporter reporter = PinFailureReporter.builder().reportUri(base + "/app").intervalMillis(0).build();
        assertEquals(base + "/app", reporter.reportUri());
        assertEquals(PinFailureReporter.Outcome.SENT_TO_FALLBACK,
                reporter.submit(failure("ftp.example.com", null), 443, base + "/reports").get(10, TimeUnit.SECONDS));
        byte[] fork = "{\"pinset-report\":\"log-fork\",\"date-time\":\"2026-11-28T00:00:00Z\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(PinFailureReporter.Outcome.SENT, reporter.submitLogFork(fork, base + "/reports").get(10, TimeUnit.SECONDS));
        @SuppressWarnings("deprecation")
        java.util.concurrent.Future<PinFailureReporter.Outcome> old = reporter.submitLogFork(fork, base + "/from-document", base + "/reports");
        assertEquals(PinFailureReporter.Outcome.SENT, old.get(10, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.size() < 5 && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(List.of("/app", "/app", "/app", "/reports", "/reports"), received.stream()
                .map(l -> l.substring(0, l.indexOf(' '))).sorted().collect(java.util.stream.Collectors.toList()));
        assertEquals(PinFailureReporter.Outcome.NO_REPORT_URI,
                new PinFailureReporter().submitLogFork(fork, null).get(10, TimeUnit.SECONDS));
        for (String bad : new String[] {"mailto:x@example.com", "reports", "ftp://example.com/r"}) {
            assertThrows(IllegalArgumentException.class, () -> PinFailureReporter.builder().reportUri(bad), bad);
        }
    }

    /** A reportUri on a name the failing set covers is the possible interceptor: the report goes to the pin server. */
    @Test
    void aReportUriOnTheFailingHostIsSkippedForThePinServer() throws Exception {
        PinFailureReporter reporter = new PinFailureReporter(null, 86_400_000L);
        assertEquals(PinFailureReporter.Outcome.SENT_TO_FALLBACK, reporter.submit(
                failure("api.example.com", "https://reports.example.com/r"), 443, base + "/reports").get(10, TimeUnit.SECONDS));
        assertEquals(List.of("/reports"), received.stream().map(l -> l.substring(0, l.indexOf(' '))).collect(
                java.util.stream.Collectors.toList()));
    }
}
