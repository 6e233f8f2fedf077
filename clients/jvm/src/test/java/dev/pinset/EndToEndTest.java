package dev.pinset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 23, all real: a {@code pinset serve} process, {@code openssl s_server} hosts with a test CA, and the JVM
 * client through a real OkHttp client.
 */
class EndToEndTest {
    private File directory;
    private Processes processes;
    private TestPki pki;
    private final List<UpdateEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        directory = Processes.temporaryDirectory("pinset-jvm-e2e");
        processes = new Processes(directory);
        pki = new TestPki(processes);
    }

    @AfterEach
    void tearDown() throws Exception {
        processes.close();
        Processes.deleteTree(directory);
    }

    /** A real {@code pinset serve} on a new database, signing with a new key {@code signing.pem} (refresh 1 s). */
    private PinServerProcess startServer() throws Exception {
        File database = new File(directory, "pinset.sqlite");
        File key = pki.ed25519("signing");
        return PinServerProcess.start(processes, database, key, PinServerProcess.createToken(processes, database));
    }

    /** A store that trusts the server's signing key as an app ships it (its public PEM), with the JDK verifier. */
    private PinSetStore shippedKeyStore() throws Exception {
        return shippedKeyStore(new JdkEd25519Verifier());
    }

    private PinSetStore shippedKeyStore(Ed25519Verifier ed25519) throws Exception {
        TrustedKey signing = TrustedKey.fromPem(Files.readString(new File(directory, "signing.pub.pem").toPath()));
        return new PinSetStore(new DocumentVerifier(List.of(signing), null, ed25519, 300_000), new PinningOptions());
    }

    /** An OkHttp client pinned by {@code store}; names resolve to 127.0.0.1 only, and no connection is reused. */
    private OkHttpClient client(PinSetStore store) throws Exception {
        PinningTrustManager trust = new PinningTrustManager(PinningTrustManager.platformDefault(pki.roots()), store);
        return PinSetOkHttp.configure(new OkHttpClient.Builder(), trust)
                .dns(host -> List.of(InetAddress.getByName("127.0.0.1")))
                .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
                .connectTimeout(5, TimeUnit.SECONDS).readTimeout(5, TimeUnit.SECONDS)
                .build();
    }

    /** Like {@link #client} but over an SSLContext made by hand, which never drops its cached sessions. */
    private OkHttpClient backstopClient(PinSetStore store) throws Exception {
        PinningTrustManager trust = new PinningTrustManager(PinningTrustManager.platformDefault(pki.roots()), store);
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(null, new javax.net.ssl.TrustManager[] {trust}, null);
        OkHttpClient.Builder builder = new OkHttpClient.Builder();
        return builder.sslSocketFactory(context.getSocketFactory(), trust)
                .hostnameVerifier(trust.hostnameVerifier(builder.build().hostnameVerifier()))
                .dns(host -> List.of(InetAddress.getByName("127.0.0.1")))
                .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
                .build();
    }

    /** {@code null} when GET https://localhost:port/ answers 200, else the exception that refused it. */
    private static IOException connect(OkHttpClient client, int port) {
        try (Response response = client.newCall(new Request.Builder().url("https://localhost:" + port + "/").build()).execute()) {
            assertEquals(200, response.code());
            return null;
        } catch (IOException refused) {
            return refused;
        }
    }

    private static boolean waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int attempt = 0; attempt < 300; attempt++) {
            if (condition.getAsBoolean()) return true;
            Thread.sleep(100);
        }
        return false;
    }

    private PinSetUpdater.Configuration fastPolling(String server) {
        PinSetUpdater.Configuration configuration = new PinSetUpdater.Configuration(server, List.of("localhost"));
        configuration.minimumRefreshSeconds = 1;
        configuration.maximumRefreshSeconds = 1;
        configuration.initialBackoffSeconds = 1;
        configuration.maximumBackoffSeconds = 2;
        configuration.jitter = 0;
        return configuration;
    }

    @Test
    void connectsRefusesNamingTheKeysAndHotSwapsAfterARotation() throws Exception {
        PinServerProcess server = startServer();
        String a = pki.leaf("a");
        String b = pki.leaf("b");
        int portA = pki.serve(a);
        String pinA = pki.pin(a);
        String pinB = pki.pin(b);
        assertEquals(201, server.putSet("localhost", pinA, TestPki.randomPin(), null));
        processes.run(PinServerProcess.BINARY, "export", "--db", new File(directory, "pinset.sqlite").getPath(), "--out", "export");

        PinSetStore store = shippedKeyStore();
        PinSetUpdater updater = new PinSetUpdater(fastPolling(server.url), store, null,
                new PinStorage(new File(directory, "cache")), null, null, events::add);
        OkHttpClient client = client(store);

        // Before any set arrives the configured host is refused, not silently unpinned.
        store.expectSets(List.of("localhost"));
        assertNotNull(connect(client, portA), "a configured host without a set connected");

        updater.start();
        try {
            assertTrue(waitFor(() -> store.acceptedVersion("localhost") != null), "no set arrived: " + events);
            assertNull(connect(client, portA), "the served key is pinned but the connection failed");
            // A client whose context keeps its TLS sessions across swaps: only the hostname verifier stands
            // between a resumed session and the new set.
            OkHttpClient backstop = backstopClient(store);
            assertNull(connect(backstop, portA));

            // An administrator rotates the host to key B: the next poll swaps the set in; the same client refuses A.
            assertEquals(200, server.putSet("localhost", pinB, TestPki.randomPin(), null));
            assertTrue(waitFor(() -> store.acceptedVersion("localhost").version() == 2), "no hot swap: " + events);
            IOException refused = connect(client, portA);
            assertNotNull(refused, "a key no longer pinned still connected");
            PinningTrustManager.PinningException cause = PinningTrustManager.PinningException.find(refused);
            assertNotNull(cause, "refused for another reason: " + refused);
            assertEquals(TrustDecision.Kind.PIN_MISMATCH, cause.decision().kind());
            assertNotNull(connect(backstop, portA), "a resumed session skipped the new set");
            String message = cause.getMessage();
            assertTrue(message.contains("served [" + pinA), "the refusal does not name the served key: " + message);
            assertTrue(message.contains(pinB), "the refusal does not name the pinned key: " + message);

            // The failure is classified once the updater fetched the newest set: it still refuses A.
            assertTrue(waitFor(() -> events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.PIN_FAILURE
                    && e.failure().classification() == PinFailure.Classification.UNEXPECTED_KEY)), "no classification: " + events);

            // Back to A: hot-swapped again, no new client, no restart.
            int portB = pki.serve(b);
            assertEquals(200, server.putSet("localhost", pinA, pinB, null));
            assertTrue(waitFor(() -> store.acceptedVersion("localhost").version() == 3), "no second swap: " + events);
            assertNull(connect(client, portA));
            assertNull(connect(client, portB), "the backup key B is pinned too");
        } finally {
            updater.stop();
        }

        // A new process reloads the persisted set (rollback protection across restarts), before any fetch.
        PinSetStore restarted = shippedKeyStore();
        new PinSetUpdater(fastPolling(server.url), restarted, null, new PinStorage(new File(directory, "cache")), null,
                null, null).loadPersisted();
        assertEquals(3, restarted.acceptedVersion("localhost").version());

        // Its first fetch sends If-None-Match with the persisted document's ETag: 304, nothing re-verified.
        PinSetUpdater again = new PinSetUpdater(fastPolling(server.url), restarted, null,
                new PinStorage(new File(directory, "cache")), null, null, null);
        again.loadPersisted();
        assertEquals(UpdateEvent.Kind.NOT_MODIFIED, again.refreshNow("localhost").kind());

        // An app that ships the `pinset export` folder holds version 1 before any fetch; a tampered file changes nothing.
        File exported = new File(directory, "export/pins/localhost");
        File tampered = new File(directory, "export/pins/example.com");
        Files.write(tampered.toPath(), Files.readAllBytes(exported.toPath()));
        PinSetStore bundled = shippedKeyStore();
        Map<String, Object> outcomes = bundled.installBundledDocuments(new File(directory, "export"));
        assertTrue(outcomes.get("localhost") instanceof VerifiedDocument, outcomes.toString());
        assertEquals(DocumentRejection.Code.HOST_MISMATCH, ((DocumentRejection) outcomes.get("example.com")).code());
        assertEquals(1, bundled.acceptedVersion("localhost").version());
        assertNull(bundled.pinSet("example.com"));
        assertNull(connect(client(bundled), portA), "the bundled set pins A");
    }

    /**
     * A keep-alive HTTPS host (the JDK's HttpsServer with leaf A): OkHttp pools the connection, and a swap must
     * still refuse the next request instead of reusing the pooled connection opened under the old set.
     */
    @Test
    void aPooledConnectionDoesNotOutliveItsSet() throws Exception {
        PinServerProcess server = startServer();
        String a = pki.leaf("a");
        assertEquals(201, server.putSet("localhost", pki.pin(a), TestPki.randomPin(), null));
        processes.run("openssl", "pkcs12", "-export", "-in", "a.pem", "-inkey", "a.key", "-certfile", "ca.pem",
                "-out", "a.p12", "-passout", "pass:test");
        java.security.KeyStore identity = java.security.KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = new java.io.FileInputStream(new File(directory, "a.p12"))) {
            identity.load(in, "test".toCharArray());
        }
        javax.net.ssl.KeyManagerFactory keys = javax.net.ssl.KeyManagerFactory.getInstance("PKIX");
        keys.init(identity, "test".toCharArray());
        javax.net.ssl.SSLContext serverContext = javax.net.ssl.SSLContext.getInstance("TLS");
        serverContext.init(keys.getKeyManagers(), null, null);
        com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(
                new java.net.InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 8);
        https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(serverContext));
        https.createContext("/", exchange -> {
            byte[] body = "ok".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        https.start();
        try {
            PinSetStore store = shippedKeyStore();
            PinSetUpdater updater = new PinSetUpdater(fastPolling(server.url), store, null, null, null, null, events::add);
            assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow("localhost").kind());
            PinningTrustManager trust = new PinningTrustManager(PinningTrustManager.platformDefault(pki.roots()), store);
            OkHttpClient client = PinSetOkHttp.configure(new OkHttpClient.Builder(), trust)
                    .dns(host -> List.of(InetAddress.getByName("127.0.0.1"))).build();
            int port = https.getAddress().getPort();
            assertNull(connect(client, port));
            assertNull(connect(client, port));
            assertEquals(1, client.connectionPool().connectionCount(), "the connection is pooled");
            assertEquals(200, server.putSet("localhost", TestPki.randomPin(), TestPki.randomPin(), null));
            assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow("localhost").kind());
            assertNotNull(connect(client, port), "the pooled connection outlived its set");
        } finally {
            https.stop(0);
        }
    }

    /** The path for code without OkHttp: HttpsURLConnection with the context's socket factory and the verifier. */
    @Test
    void httpsUrlConnectionIsPinnedByTheSameStore() throws Exception {
        PinServerProcess server = startServer();
        String a = pki.leaf("a");
        int portA = pki.serve(a);
        assertEquals(201, server.putSet("localhost", pki.pin(a), TestPki.randomPin(), null));
        PinSetStore store = shippedKeyStore(new BouncyCastleEd25519Verifier());
        PinSetUpdater updater = new PinSetUpdater(fastPolling(server.url), store, null, null, null, null, events::add);
        assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow("localhost").kind());
        PinningTrustManager trust = new PinningTrustManager(PinningTrustManager.platformDefault(pki.roots()), store);
        javax.net.ssl.SSLSocketFactory factory = trust.sslContext().getSocketFactory();
        javax.net.ssl.HostnameVerifier verifier =
                trust.hostnameVerifier(javax.net.ssl.HttpsURLConnection.getDefaultHostnameVerifier());
        java.util.function.IntSupplier get = () -> {
            try {
                javax.net.ssl.HttpsURLConnection connection = (javax.net.ssl.HttpsURLConnection)
                        new java.net.URL("https://localhost:" + portA + "/").openConnection();
                connection.setSSLSocketFactory(factory);
                connection.setHostnameVerifier(verifier);
                connection.setConnectTimeout(5000);
                connection.setReadTimeout(5000);
                try {
                    return connection.getResponseCode();
                } finally {
                    connection.disconnect();
                }
            } catch (IOException refused) {
                return PinningTrustManager.PinningException.find(refused) != null ? -1 : -2;
            }
        };
        assertEquals(200, get.getAsInt());
        assertEquals(200, server.putSet("localhost", TestPki.randomPin(), TestPki.randomPin(), null));
        assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow("localhost").kind());
        assertEquals(-1, get.getAsInt(), "not refused by the pins");
    }

    @Test
    void aStaleSetIsClassifiedAsStaleWhenTheNewestSetAcceptsTheChain() throws Exception {
        PinServerProcess server = startServer();
        String a = pki.leaf("a");
        int portA = pki.serve(a);
        assertEquals(201, server.putSet("localhost", TestPki.randomPin(), TestPki.randomPin(), null));
        PinSetStore store = shippedKeyStore();
        PinSetUpdater.Configuration configuration = fastPolling(server.url);
        configuration.minimumRefreshSeconds = 3600;
        configuration.maximumRefreshSeconds = 3600;
        PinSetUpdater updater = new PinSetUpdater(configuration, store, null, null, null, null, events::add);
        assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow("localhost").kind());
        updater.start();
        try {
            assertEquals(200, server.putSet("localhost", pki.pin(a), TestPki.randomPin(), null));
            assertNotNull(connect(client(store), portA), "the old set should still refuse A");
            assertTrue(waitFor(() -> events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.PIN_FAILURE
                    && e.failure().classification() == PinFailure.Classification.STALE_SET)), "not staleSet: " + events);
            assertNull(connect(client(store), portA), "the re-fetched set accepts A");
        } finally {
            updater.stop();
        }
    }

    @Test
    void aReportReachesThePinServerWhenTheReportHostIsTheFailingPinnedHost() throws Exception {
        PinServerProcess server = startServer();
        String rogue = pki.leaf("rogue");
        int roguePort = pki.serve(rogue);
        // The set's reportUri is on the very host whose pins fail (TrustKit-Android issue 72).
        String reportUri = "https://localhost:" + roguePort + "/pin-reports";
        assertEquals(201, server.putSet("localhost", TestPki.randomPin(), TestPki.randomPin(), reportUri));
        PinSetStore store = shippedKeyStore();
        PinFailureReporter reporter = new PinFailureReporter(
                javax.net.ssl.SSLContext.getDefault().getSocketFactory(), 86_400_000L);
        PinSetUpdater updater = new PinSetUpdater(fastPolling(server.url), store, null, null, reporter, null, events::add);
        updater.start();
        try {
            assertTrue(waitFor(() -> store.acceptedVersion("localhost") != null), "no set: " + events);
            assertNotNull(connect(client(store), roguePort), "the rogue key connected");
            assertTrue(waitFor(() -> {
                try {
                    return server.adminGet("/admin/reports").contains("localhost");
                } catch (IOException e) {
                    return false;
                }
            }), "no report reached the pin server: " + events);
        } finally {
            updater.stop();
        }
    }

    /** Routes the client's pin server name to the real server, the restarted one or a rogue one, as DNS would. */
    private static final class RoutedTransport implements PinSetTransport {
        final AtomicReference<String> target = new AtomicReference<>();
        final UrlConnectionTransport inner = new UrlConnectionTransport();

        @Override
        public TransportResponse get(String url, Map<String, String> headers) throws IOException {
            return inner.get(url.replace("http://pins.example.invalid", target.get()), headers);
        }
    }

    @Test
    void keyCompromiseDrill() throws Exception {
        File root = pki.ed25519("root");
        File keyA = pki.ed25519("signing-a");
        File keyB = pki.ed25519("signing-b");
        File database = new File(directory, "pinset.sqlite");
        String token = PinServerProcess.createToken(processes, database);
        String rootPub = new File(directory, "root.pub.pem").getPath();

        // 1. The server signs with A; trust v1 (root → A) is pushed; the set pins the TLS leaf.
        PinServerProcess server = PinServerProcess.start(processes, database, keyA, token, "--root-pub", rootPub);
        processes.run(PinServerProcess.BINARY, "trust", "sign", "--root-key", root.getPath(), "--signing-key-pub",
                new File(directory, "signing-a.pub.pem").getPath(), "--version", "1", "--out", "trust-1.json");
        assertEquals(201, server.pushTrust(new File(directory, "trust-1.json")));
        String leaf = pki.leaf("good");
        int goodPort = pki.serve(leaf);
        assertEquals(201, server.putSet("localhost", pki.pin(leaf), TestPki.randomPin(), null));

        // The client ships only the root public key.
        TrustStore trust = new TrustStore(TrustState.ofRootKeys(
                List.of(TrustedKey.fromPem(Files.readString(new File(rootPub).toPath()))), 1));
        PinSetStore store = new PinSetStore(
                new DocumentVerifier(List.of(), trust, new JdkEd25519Verifier(), 300_000), new PinningOptions());
        RoutedTransport transport = new RoutedTransport();
        transport.target.set(server.url);
        PinSetUpdater updater = new PinSetUpdater(fastPolling("http://pins.example.invalid"), store, transport, null,
                null, null, events::add);
        OkHttpClient client = client(store);
        assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow("localhost").kind(), events.toString());
        assertEquals(1, trust.current().version());
        assertNull(connect(client, goodPort));

        // What an attacker who stole A also has: the database as it was.
        processes.stop(server.process);
        File rogueDatabase = new File(directory, "rogue.sqlite");
        Files.copy(database.toPath(), rogueDatabase.toPath(), StandardCopyOption.REPLACE_EXISTING);

        // 2. A leaks. Offline, the root signs v2 naming only B; the server restarts with B; v2 is pushed.
        processes.run(PinServerProcess.BINARY, "trust", "sign", "--root-key", root.getPath(), "--signing-key-pub",
                new File(directory, "signing-b.pub.pem").getPath(), "--version", "2", "--out", "trust-2.json");
        PinServerProcess restarted = PinServerProcess.start(processes, database, keyB, token, "--root-pub", rootPub);
        assertEquals(201, restarted.pushTrust(new File(directory, "trust-2.json")));
        transport.target.set(restarted.url);

        // 3. The same client, no restart: it walks to v2 and accepts B's documents.
        assertTrue(updater.refreshTrust(), events.toString());
        assertEquals(2, trust.current().version());
        String kidB = TrustedKey.fromPem(Files.readString(new File(directory, "signing-b.pub.pem").toPath())).kid();
        assertTrue(waitFor(() -> {
            updater.refreshNow("localhost");
            return kidB.equals(store.document("localhost").kid());
        }), "the set was not re-signed by B: " + events);
        assertNull(connect(client, goodPort));

        // A rogue server with A and the old database publishes a valid-looking set for its own key.
        PinServerProcess rogue = PinServerProcess.start(processes, rogueDatabase, keyA, token, "--root-pub", rootPub);
        String evil = pki.leaf("evil");
        int evilPort = pki.serve(evil);
        assertEquals(200, rogue.putSet("localhost", pki.pin(evil), TestPki.randomPin(), null));
        transport.target.set(rogue.url);
        UpdateEvent refused = updater.refreshNow("localhost");
        assertEquals(UpdateEvent.Kind.REJECTED, refused.kind(), refused.toString());
        assertEquals(DocumentRejection.Code.UNKNOWN_KEY, refused.rejection().code());
        assertTrue(events.stream().anyMatch(e -> e.trustRejection() != null
                && e.trustRejection().code() == TrustRejection.Code.ROLLBACK), "its /trust v1 was not a rollback: " + events);
        assertEquals(2, trust.current().version());
        assertEquals(kidB, store.document("localhost").kid());
        assertNull(connect(client, goodPort));
        assertNotNull(connect(client, evilPort), "the rogue key connected");
    }
}
