package dev.pinset;

import dev.pinset.internal.Json;
import dev.pinset.internal.MerkleHasher;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 item 4 through the JVM client, all real: {@code pinset serve --log-key ... --witness URL VKEY} with a
 * {@code pinset witness} process; the client with a 1-of-1 tlog-policy accepts each new set with its proof (the
 * consistency with the checkpoint before computed from the server's tiles), refuses a set whose proof a rewriting
 * proxy tampered with, and refuses the split view of a second server holding the same signing key and log key but
 * another history, as a fork reported with both notes; the set in force stays each time.
 */
class LogEndToEndTest {
    static final String ORIGIN = "pins.test/log";
    static final String HOST = "api.test";
    private File directory;
    private Processes processes;
    private TestPki pki;
    private HttpServer helper;
    private final List<String> reports = new CopyOnWriteArrayList<>();
    /** What reached the application's own report address ({@code /app-reports} on the helper). */
    private final List<String> appReports = new CopyOnWriteArrayList<>();
    private String appReportUri;
    private final List<UpdateEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        directory = Processes.temporaryDirectory("pinset-jvm-log");
        processes = new Processes(directory);
        pki = new TestPki(processes);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (helper != null) helper.stop(0);
        processes.close();
        Processes.deleteTree(directory);
    }

    /** The raw key of {@code name.pub.pem} as a note verifier key of {@code keyName}. */
    private VerifierKey vkey(String name, String keyName, int type) throws Exception {
        TrustedKey key = TrustedKey.fromPem(Files.readString(new File(directory, name + ".pub.pem").toPath()));
        return VerifierKey.of(keyName, type, key.raw());
    }

    /** A {@code pinset witness} following the log; returns its URL and vkey as printed. */
    private String[] startWitness(VerifierKey log) throws Exception {
        File key = pki.ed25519("witness");
        File out = new File(directory, "witness.log");
        processes.start(out, PinServerProcess.BINARY, "witness", "--name", "w1.test", "--key", key.getPath(), "--log",
                log.toString(), "--db", new File(directory, "witness.sqlite").getPath(), "--port", "0");
        Pattern printed = Pattern.compile("serving on (http://127\\.0\\.0\\.1:[0-9]+)\\s+vkey: (\\S+)");
        for (int attempt = 0; attempt < 300; attempt++) {
            Matcher matcher = printed.matcher(Files.readString(out.toPath()));
            if (matcher.find()) {
                assertEquals(vkey("witness", "w1.test", VerifierKey.COSIGNATURE).toString(), matcher.group(2));
                return new String[] {matcher.group(1), matcher.group(2)};
            }
            Thread.sleep(100);
        }
        throw new IOException("pinset witness printed no URL: " + Files.readString(out.toPath()));
    }

    /**
     * A loopback HTTP server: {@code /reports} records what is posted; {@code /proxy/...} forwards a GET to
     * {@code upstream} and, for a proof, replaces its first inclusion hash (a tampering man in the middle).
     */
    private String startHelper(String upstream) throws IOException {
        helper = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        helper.createContext("/reports", exchange -> {
            reports.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        helper.createContext("/app-reports", exchange -> {
            appReports.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        helper.createContext("/proxy/", exchange -> {
            String path = exchange.getRequestURI().getPath().substring("/proxy".length());
            HttpURLConnection connection = (HttpURLConnection) new URL(upstream + path).openConnection();
            int status = connection.getResponseCode();
            byte[] body = readAll(status >= 400 ? connection.getErrorStream() : connection.getInputStream());
            String etag = connection.getHeaderField("ETag");
            connection.disconnect();
            if (path.endsWith("/proof") && status == 200) body = tamper(body);
            if (etag != null) exchange.getResponseHeaders().set("ETag", etag);
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            exchange.close();
        });
        helper.start();
        appReportUri = "http://127.0.0.1:" + helper.getAddress().getPort() + "/app-reports";
        return "http://127.0.0.1:" + helper.getAddress().getPort();
    }

    private static byte[] readAll(InputStream stream) throws IOException {
        if (stream == null) return new byte[0];
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (InputStream in = stream) {
            in.transferTo(bytes);
        }
        return bytes.toByteArray();
    }

    /** The proof with the leaf index moved by one: the inclusion proof no longer leads to the root. */
    private static byte[] tamper(byte[] proof) {
        String text = new String(proof, StandardCharsets.UTF_8);
        Matcher index = Pattern.compile("\nindex ([0-9]+)\n").matcher(text);
        assertTrue(index.find(), text);
        long moved = Long.parseLong(index.group(1)) ^ 1;
        return (text.substring(0, index.start()) + "\nindex " + moved + "\n" + text.substring(index.end()))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** {@code pinset serve} with the log and the witness ({@code extra} options after them). */
    private PinServerProcess startLoggedServer(File signing, File logKey, String[] witness, String... extra) throws Exception {
        File database = new File(directory, "pinset.sqlite");
        List<String> options = new java.util.ArrayList<>(List.of("--log-key", logKey.getPath(), "--log-origin", ORIGIN,
                "--witness", witness[0], witness[1]));
        options.addAll(List.of(extra));
        return PinServerProcess.start(processes, database, signing, PinServerProcess.createToken(processes, database),
                options.toArray(new String[0]));
    }

    /** An updater as an app builds one, its reporter with the app's own report address (the helper's). */
    private PinSetUpdater updater(String server, PinSetStore store, LogPolicy policy) {
        PinFailureReporter.Builder reporter = PinFailureReporter.builder().intervalMillis(1);
        if (appReportUri != null) reporter.reportUri(appReportUri);
        PinSetUpdater updater = PinSetUpdater.builder(server, store).hosts(HOST).logPolicy(policy)
                .storage(new PinStorage(new File(directory, "cache"))).reporter(reporter.build()).build();
        updater.addListener(events::add);
        updater.loadPersisted();
        return updater;
    }

    private static long version(PinSetStore store) {
        AcceptedVersion accepted = store.acceptedVersion(HOST);
        return accepted == null ? 0 : accepted.version();
    }

    /**
     * Waits (at most 10 s) until the proof at {@code url} carries a cosignature besides the log's own signature: a
     * signed note's signature lines start with an em dash (C2SP signed-note).
     */
    private static void awaitCosignedProof(String url) throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 100; attempt++) {
            String proof = new String(get(url), StandardCharsets.UTF_8);
            if (proof.lines().filter(line -> line.startsWith("\u2014 ")).count() >= 2) {
                return;
            }
            Thread.sleep(100);
        }
        fail("no cosigned proof at " + url + " after 10 s");
    }

    /** Refreshes until the event is not a quorum refusal (cosignatures arrive just after the write's answer). */
    private static UpdateEvent refreshWhileCosigning(PinSetUpdater updater) throws InterruptedException {
        UpdateEvent event = updater.refreshNow(HOST);
        for (int attempt = 0; attempt < 100 && event.logError() != null
                && event.logError().code() == LogError.Code.QUORUM_NOT_MET; attempt++) {
            Thread.sleep(100);
            event = updater.refreshNow(HOST);
        }
        return event;
    }

    @Test
    void acceptsWithAProofRefusesATamperedOneAndReportsASplitView() throws Exception {
        File signing = pki.ed25519("signing");
        File logKey = pki.ed25519("log");
        VerifierKey log = vkey("log", ORIGIN, VerifierKey.ED25519);
        String[] witness = startWitness(log);
        PinServerProcess server = startLoggedServer(signing, logKey, witness);
        String reportsUrl = startHelper(server.url);
        LogPolicy policy = LogPolicy.parse(("log " + log + "\nwitness w1 " + witness[1] + "\nquorum w1\n")
                .getBytes(StandardCharsets.UTF_8));
        TrustedKey shipped = TrustedKey.fromPem(Files.readString(new File(directory, "signing.pub.pem").toPath()));
        PinSetStore store = new PinSetStore(new DocumentVerifier(List.of(shipped), null, new JdkEd25519Verifier(), 300_000),
                new PinningOptions());

        // Version 1 with its proof, cosigned by the witness: accepted, its checkpoint kept.
        String current = TestPki.randomPin();
        assertEquals(201, server.putSet(HOST, current, TestPki.randomPin(), reportsUrl + "/reports"));
        PinSetUpdater direct = updater(server.url, store, policy);
        UpdateEvent event = refreshWhileCosigning(direct);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
        assertEquals(1, version(store));

        // Version 2 through a proxy that tampers with the proof: refused, version 1 stays.
        for (int i = 0; i < 3; i++) assertEquals(201, server.putSet("other" + i + ".test", TestPki.randomPin(), TestPki.randomPin(), null));
        assertEquals(200, server.putSet(HOST, current, TestPki.randomPin(), reportsUrl + "/reports"));
        event = refreshWhileCosigning(updater(reportsUrl + "/proxy", store, policy));
        assertEquals(DocumentRejection.Code.NOT_LOGGED, event.rejection().code(), event.toString());
        assertEquals(LogError.Code.NOT_INCLUDED, event.logError().code());
        assertEquals(1, version(store));
        // Straight from the server: accepted, consistent with the checkpoint of version 1 (a proof from its tiles).
        event = refreshWhileCosigning(direct);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
        assertEquals(2, version(store));
        byte[] largest = new PinStorage(new File(directory, "cache")).loadCheckpoint(ORIGIN);
        assertTrue(new String(largest, StandardCharsets.UTF_8).startsWith(ORIGIN + "\n5\n"), new String(largest, StandardCharsets.UTF_8));

        // The split view: a second server with the same signing key and log key, another history, no witness.
        File rogueDatabase = new File(directory, "rogue.sqlite");
        PinServerProcess rogue = PinServerProcess.start(processes, rogueDatabase, signing,
                PinServerProcess.createToken(processes, rogueDatabase), "--log-key", logKey.getPath(), "--log-origin",
                ORIGIN);
        // Its tree is the larger (7 entries against 5), so its own tiles give the consistency proof that fails. (A
        // smaller rogue tree cannot be shown to fork from its own tiles: it is refused as missingHash instead.)
        assertEquals(201, rogue.putSet(HOST, TestPki.randomPin(), TestPki.randomPin(), null));
        for (int i = 0; i < 5; i++) assertEquals(201, rogue.putSet("rogue" + i + ".test", TestPki.randomPin(), TestPki.randomPin(), null));
        assertEquals(200, rogue.putSet(HOST, TestPki.randomPin(), TestPki.randomPin(), null));
        event = updater(rogue.url, store, policy).refreshNow(HOST);
        assertEquals(DocumentRejection.Code.LOG_FORK, event.rejection().code(), event.toString());
        event = events.stream().filter(e -> e.kind() == UpdateEvent.Kind.LOG_FORK).findFirst().orElseThrow();
        assertArrayEquals(largest, event.inForce());
        assertTrue(new String(event.offered(), StandardCharsets.UTF_8).startsWith(ORIGIN + "\n7\n"));
        assertEquals(2, version(store));
        // PROTOCOL §7.4 (issue 35): the report goes to the configured pin server (here the rogue one, which holds the
        // same log key, so the notes verify and it stores the report), never to the set's reportUri.
        Map<String, Object> listed = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            listed = Json.parseObject(rogue.adminGet("/admin/reports").getBytes(StandardCharsets.UTF_8));
            if (!((List<?>) listed.get("logForks")).isEmpty()) break;
            Thread.sleep(100);
        }
        Map<?, ?> report = (Map<?, ?>) ((List<?>) listed.get("logForks")).get(0);
        assertEquals("/pins/" + HOST, report.get("document"));
        assertEquals(new String(largest, StandardCharsets.UTF_8), report.get("keptCheckpoint"));
        assertEquals(new String(event.offered(), StandardCharsets.UTF_8), report.get("refusedCheckpoint"));
        // And to the application's own report address (issue 35 item 4), the same report.
        for (int attempt = 0; attempt < 100 && appReports.isEmpty(); attempt++) Thread.sleep(100);
        assertEquals(1, appReports.size(), appReports.toString());
        Map<String, Object> atApp = Json.parseObject(appReports.get(0).getBytes(StandardCharsets.UTF_8));
        assertEquals("log-fork", atApp.get("pinset-report"));
        assertEquals(new String(largest, StandardCharsets.UTF_8), atApp.get("kept-checkpoint"));
        assertEquals(new String(event.offered(), StandardCharsets.UTF_8), atApp.get("refused-checkpoint"));
        assertTrue(reports.isEmpty(), "nothing went to the set's reportUri: " + reports);
        // PROTOCOL §3: across sizes (5 held, 7 offered) the report carries the consistency proof that fails, from the
        // smaller tree to the larger, as the rogue log's tiles give it; the rogue server stored it (its notes verify).
        assertForkProof(atApp, largest, event.offered(), rogue.url + "/log");

        // The app restarts: the fork is read back from its storage, so the honest server's next set, signed under the
        // same log key and cosigned, is still refused (PROTOCOL §7.4: until a trust document names another log key);
        // the set in force stays version 2.
        assertEquals(200, server.putSet(HOST, current, TestPki.randomPin(), reportsUrl + "/reports"));
        PinSetStore restarted = new PinSetStore(new DocumentVerifier(List.of(shipped), null, new JdkEd25519Verifier(),
                300_000), new PinningOptions());
        event = refreshWhileCosigning(updater(server.url, restarted, policy));
        assertEquals(2, version(restarted), event.toString());
        assertEquals(DocumentRejection.Code.NOT_LOGGED, event.rejection().code(), event.toString());
        assertEquals(LogError.Code.UNKNOWN_ORIGIN, event.logError().code(), event.toString());

        // The same honest set bundled with its proof, as `pinset export --log-from` writes them (pins/<host>,
        // proof/pins/<host>), is refused by every bundled path too (PROTOCOL §7.4, issue 35): its checkpoint is signed
        // by the log key that signed the fork. A store that knows of no fork installs the same bundle.
        // The refusal above came before any witness round: wait until the served proof is cosigned, so that the export
        // holds a proof that meets the quorum (else the unaware store below refuses it for the quorum, not the fork).
        awaitCosignedProof(server.url + "/pins/" + HOST + "/proof");
        File bundle = new File(directory, "bundle");
        processes.run(PinServerProcess.BINARY, "export", "--db", new File(directory, "pinset.sqlite").getPath(), "--out",
                bundle.getPath(), "--log-from", server.url);
        byte[] document = Files.readAllBytes(new File(bundle, "pins/" + HOST).toPath());
        byte[] proof = Files.readAllBytes(new File(bundle, "proof/pins/" + HOST).toPath());
        assertArrayEquals(get(server.url + "/pins/" + HOST), document);
        Object outcome = restarted.installBundledDocuments(bundle, policy).get(HOST);
        assertTrue(outcome instanceof DocumentRejection && ((DocumentRejection) outcome).code()
                == DocumentRejection.Code.NOT_LOGGED, String.valueOf(outcome));
        assertTrue(((DocumentRejection) outcome).getMessage().contains("signed a fork"), String.valueOf(outcome));
        DocumentRejection streamed = org.junit.jupiter.api.Assertions.assertThrows(DocumentRejection.class,
                () -> restarted.installBundledDocument(HOST, new java.io.ByteArrayInputStream(document),
                        new java.io.ByteArrayInputStream(proof), policy));
        assertEquals(DocumentRejection.Code.NOT_LOGGED, streamed.code(), streamed.getMessage());
        assertEquals(2, version(restarted));
        PinSetStore unaware = new PinSetStore(new DocumentVerifier(List.of(shipped), null, new JdkEd25519Verifier(),
                300_000), new PinningOptions());
        outcome = unaware.installBundledDocuments(bundle, policy).get(HOST);
        assertTrue(outcome instanceof VerifiedDocument, String.valueOf(outcome));
        assertEquals(3, version(unaware));

        // A client that has seen neither log still refuses the rogue one: no witness cosigned it.
        PinSetStore fresh = new PinSetStore(new DocumentVerifier(List.of(shipped), null, new JdkEd25519Verifier(), 300_000),
                new PinningOptions());
        PinSetUpdater.Configuration configuration = new PinSetUpdater.Configuration(rogue.url, List.of(HOST));
        configuration.logPolicy = policy;
        event = new PinSetUpdater(configuration, fresh, null, null, null, null, null).refreshNow(HOST);
        assertEquals(LogError.Code.QUORUM_NOT_MET, event.logError().code(), event.toString());
        assertEquals(0, version(fresh));
    }

    private static byte[] get(String url) throws IOException {
        TransportResponse response = new UrlConnectionTransport().get(url, Map.of());
        assertEquals(200, response.status(), url);
        return response.body();
    }

    /**
     * The fork report's {@code proof} (PROTOCOL §3): standard base64 of the consistency proof from the held checkpoint's
     * size to the offered one's, as the offered log's tiles give it; it leads from those tiles' root to the offered
     * root, and fails from the held root.
     */
    private static void assertForkProof(Map<String, Object> report, byte[] held, byte[] offered, String tiles)
            throws Exception {
        Checkpoint small = Checkpoint.parse(SignedNote.parse(held).text());
        Checkpoint large = Checkpoint.parse(SignedNote.parse(offered).text());
        assertTrue(small.size() < large.size(), small.size() + " < " + large.size());
        TileReader reader = new TileReader(large.size(), tile -> get(tiles + "/" + tile.path()));
        List<byte[]> expected = reader.consistencyProof(small.size(), large.size());
        List<?> sent = (List<?>) report.get("proof");
        assertEquals(expected.size(), sent.size(), String.valueOf(sent));
        List<byte[]> decoded = new java.util.ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(java.util.Base64.getEncoder().encodeToString(expected.get(i)), sent.get(i));
            decoded.add(java.util.Base64.getDecoder().decode((String) sent.get(i)));
        }
        assertTrue(MerkleHasher.verifyConsistency(small.size(), large.size(), reader.rootHash(small.size()),
                large.rootHash(), decoded));
        assertTrue(!MerkleHasher.verifyConsistency(small.size(), large.size(), small.rootHash(), large.rootHash(), decoded));
    }

    @Test
    void aTrustDocumentIsWalkedOnlyWithItsProof() throws Exception {
        File root = pki.ed25519("root");
        File signing = pki.ed25519("signing");
        File logKey = pki.ed25519("log");
        VerifierKey log = vkey("log", ORIGIN, VerifierKey.ED25519);
        String[] witness = startWitness(log);
        String rootPub = new File(directory, "root.pub.pem").getPath();
        PinServerProcess server = startLoggedServer(signing, logKey, witness, "--root-pub", rootPub);
        String proxy = startHelper(server.url) + "/proxy";
        for (int version = 1; version <= 2; version++) {
            processes.run(PinServerProcess.BINARY, "trust", "sign", "--root-key", root.getPath(), "--signing-key-pub",
                    new File(directory, "signing.pub.pem").getPath(), "--version", "" + version, "--out",
                    "trust-" + version + ".json");
        }
        assertEquals(201, server.pushTrust(new File(directory, "trust-1.json")));
        assertEquals(201, server.putSet(HOST, TestPki.randomPin(), TestPki.randomPin(), null));
        LogPolicy policy = LogPolicy.parse(("log " + log + "\nwitness w1 " + witness[1] + "\nquorum w1\n")
                .getBytes(StandardCharsets.UTF_8));
        TrustStore trust = new TrustStore(TrustState.ofRootKeys(
                List.of(TrustedKey.fromPem(Files.readString(new File(rootPub).toPath()))), 1));
        PinSetStore store = new PinSetStore(new DocumentVerifier(List.of(), trust, new JdkEd25519Verifier(), 300_000),
                new PinningOptions());

        // Trust version 2 through the tampering proxy: its proof fails, the walk stops at version 0.
        assertEquals(201, server.pushTrust(new File(directory, "trust-2.json")));
        PinSetUpdater tampered = updater(proxy, store, policy);
        for (int attempt = 0; attempt < 100 && !events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.TRUST_REJECTED
                && e.logError() != null && e.logError().code() == LogError.Code.NOT_INCLUDED); attempt++) {
            tampered.refreshTrust();
            Thread.sleep(100);
        }
        assertTrue(events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.TRUST_REJECTED
                && e.trustRejection().code() == TrustRejection.Code.NOT_LOGGED
                && e.logError().code() == LogError.Code.NOT_INCLUDED), events.toString());
        assertEquals(0, trust.current().version(), events.toString());
        // Straight from the server: versions 1 and 2 are walked with their proofs, then the set is accepted.
        PinSetUpdater direct = updater(server.url, store, policy);
        for (int attempt = 0; attempt < 100 && trust.current().version() < 2; attempt++) {
            direct.refreshTrust();
            if (trust.current().version() < 2) Thread.sleep(100);
        }
        assertEquals(2, trust.current().version(), events.toString());
        UpdateEvent event = refreshWhileCosigning(direct);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
        assertEquals(1, version(store));
    }
}
