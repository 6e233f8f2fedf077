package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The updater with a tlog-policy (PROTOCOL §7.4) against a loopback HTTP server serving the log vectors
 * (Tests/Vectors/log): documents with their proofs, the tiles, and {@code /reports} recording what is posted. A
 * document is accepted only with a valid proof; a tampered one, a rogue log without cosignatures, and a fork change
 * nothing; the fork reaches the application with both notes and the report URI; the largest checkpoint survives a
 * restart.
 */
class LogUpdateTest {
    static final String HOST = "api.example.com";
    private HttpServer server;
    private final Map<String, byte[]> served = new ConcurrentHashMap<>();
    private final List<String> reports = new CopyOnWriteArrayList<>();
    /** The path each report was posted to, in the order they arrived. */
    private final List<String> reportPaths = new CopyOnWriteArrayList<>();
    private final List<UpdateEvent> events = new CopyOnWriteArrayList<>();
    @TempDir File storage;

    @BeforeEach
    void serve() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            if (exchange.getRequestMethod().equals("POST")) {
                reports.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                reportPaths.add(path);
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
                return;
            }
            byte[] body = path.startsWith("/log/") ? tile(path.substring(5)) : served.get(path);
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                // The proof's ETag is its document's (PROTOCOL §7.3).
                byte[] document = served.get(path.endsWith("/proof") ? path.substring(0, path.length() - 6) : path);
                if (document != null) exchange.getResponseHeaders().set("ETag", PinSetUpdater.etagOf(document));
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String tilesFolder = "honest";

    private byte[] tile(String path) {
        try {
            File file = new File(VectorTest.ROOT, "log/tiles/" + tilesFolder + "/" + path);
            return file.isFile() ? Files.readAllBytes(file.toPath()) : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private void publish(String document, String proof, String tiles) throws Exception {
        served.put("/pins/" + HOST, VectorTest.read("log/documents/" + document));
        served.put("/pins/" + HOST + "/proof", VectorTest.read("log/proofs/" + proof + ".proof"));
        tilesFolder = tiles;
    }

    private PinSetUpdater updater(PinSetStore store) throws Exception {
        return updater(store, storage);
    }

    private PinSetUpdater updater(PinSetStore store, File folder) throws Exception {
        PinSetUpdater.Configuration configuration = new PinSetUpdater.Configuration(
                "http://127.0.0.1:" + server.getAddress().getPort(), List.of(HOST));
        configuration.logPolicy = LogPolicy.parse(VectorTest.read("log/policy.txt"));
        long now = Rfc3339.parse((String) Json.parseObject(VectorTest.read("manifest.json")).get("now"));
        PinSetUpdater updater = new PinSetUpdater(configuration, store, null, new PinStorage(folder),
                new PinFailureReporter(null, 1), () -> now, events::add);
        updater.loadPersisted();
        return updater;
    }

    /** An updater made as an app makes one (the Builder), whose reporter has the app's own report address. */
    private PinSetUpdater builtUpdater(PinSetStore store) throws Exception {
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        long now = Rfc3339.parse((String) Json.parseObject(VectorTest.read("manifest.json")).get("now"));
        PinSetUpdater updater = PinSetUpdater.builder(base, store).hosts(HOST)
                .logPolicy(LogPolicy.parse(VectorTest.read("log/policy.txt"))).storage(new PinStorage(storage))
                .reporter(PinFailureReporter.builder().reportUri(base + "/app-reports").intervalMillis(1).build())
                .clock(() -> now).build();
        updater.addListener(events::add);
        updater.loadPersisted();
        return updater;
    }

    private static PinSetStore store() throws Exception {
        Map<?, ?> keys = (Map<?, ?>) Json.parseObject(VectorTest.read("manifest.json")).get("keys");
        return new PinSetStore(new DocumentVerifier(VectorTest.keys(List.of("S1"), keys), null,
                new JdkEd25519Verifier(), 300_000), new PinningOptions());
    }

    private static long version(PinSetStore store) {
        AcceptedVersion accepted = store.acceptedVersion(HOST);
        return accepted == null ? 0 : accepted.version();
    }

    @Test
    void onlyADocumentTheWorldCanSeeIsAccepted() throws Exception {
        PinSetStore store = store();
        PinSetUpdater updater = updater(store);
        // A rogue set signed with the stolen key, in a log of the stolen log key that no witness cosigned.
        publish("api.example.com-666.json", "rogue-log-without-history", "rogue");
        UpdateEvent event = updater.refreshNow(HOST);
        assertEquals(DocumentRejection.Code.NOT_LOGGED, event.rejection().code(), event.toString());
        assertEquals(LogError.Code.QUORUM_NOT_MET, event.logError().code());
        assertEquals(0, version(store));

        publish("api.example.com-3.json", "valid-proof", "honest");
        event = updater.refreshNow(HOST);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
        assertEquals(3, version(store));

        // A proof that does not lead to the document served (a newer set with the old proof): nothing changes.
        publish("api.example.com-4.json", "wrong-leaf", "honest");
        event = updater.refreshNow(HOST);
        assertEquals(LogError.Code.NOT_INCLUDED, event.logError().code(), event.toString());
        assertEquals(3, version(store));

        // The same document with a larger checkpoint: consistent (a proof from the tiles), kept as the largest.
        publish("api.example.com-3.json", "consistent-larger-checkpoint", "honest");
        served.put("/pins/" + HOST, VectorTest.read("log/documents/api.example.com-3.json"));
        updater.refreshNow(HOST);
        assertArrayEquals(VectorTest.read("log/notes/honest-300.note"),
                new PinStorage(storage).loadCheckpoint("pins.example.com/log"));
    }

    @Test
    void aForkIsRefusedReportedWithBothNotesAndRememberedAcrossARestart() throws Exception {
        PinSetStore store = store();
        publish("api.example.com-3.json", "valid-proof", "honest");
        assertEquals(UpdateEvent.Kind.UPDATED, updater(store).refreshNow(HOST).kind());
        assertArrayEquals(VectorTest.read("log/notes/honest-42.note"),
                new PinStorage(storage).loadCheckpoint("pins.example.com/log"));

        // Restarted: the persisted documents and the largest checkpoint are reloaded. The split view: the same log
        // key, another history holding the rogue set.
        PinSetStore restarted = store();
        PinSetUpdater updater = updater(restarted);
        assertEquals(3, version(restarted));
        publish("api.example.com-666.json", "fork", "rogue");
        UpdateEvent refused = updater.refreshNow(HOST);
        assertEquals(DocumentRejection.Code.LOG_FORK, refused.rejection().code(), refused.toString());
        UpdateEvent event = events.stream().filter(e -> e.kind() == UpdateEvent.Kind.LOG_FORK).findFirst().orElseThrow();
        assertEquals("/pins/" + HOST, event.document());
        assertArrayEquals(VectorTest.read("log/notes/honest-42.note"), event.inForce());
        assertArrayEquals(VectorTest.read("log/notes/rogue-300.note"), event.offered());
        assertEquals(3, version(restarted));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reports.isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(1, reports.size());
        Map<String, Object> report = Json.parseObject(reports.get(0).getBytes(StandardCharsets.UTF_8));
        assertEquals("log-fork", report.get("pinset-report"));
        assertEquals("/pins/" + HOST, report.get("document"));
        assertEquals("pins.example.com/log", report.get("log-origin"));
        assertEquals(new String(VectorTest.read("log/notes/honest-42.note"), StandardCharsets.UTF_8), report.get("kept-checkpoint"));
        assertEquals(new String(VectorTest.read("log/notes/rogue-300.note"), StandardCharsets.UTF_8), report.get("refused-checkpoint"));
        List<UpdateEvent.Kind> kinds = new ArrayList<>();
        for (UpdateEvent seen : events) kinds.add(seen.kind());
        assertTrue(kinds.contains(UpdateEvent.Kind.LOG_FORK), kinds.toString());
        assertNotNull(store.document(HOST));
        // The evidence is kept with the documents, as the Swift client keeps it.
        File evidence = new File(storage, "log-fork-" + Base64Codec.encodeUrl("pins.example.com/log".getBytes(StandardCharsets.UTF_8)) + "-1.json");
        assertEquals(report.get("kept-checkpoint"), Json.parseObject(Files.readAllBytes(evidence.toPath())).get("kept-checkpoint"));
    }

    /**
     * PROTOCOL §7.4 across a restart, as the Swift client: the log key that signed both notes of a fork stays left out
     * (its evidence file is read back and both notes verified again), so even an honest, consistent document under it
     * is refused after the restart; and the fork went to the application's report address and to the pin server's
     * {@code /reports}, nowhere else.
     */
    @Test
    void aForkedLogKeyStaysRefusedAfterARestartAndTheForkGoesToTheConfiguredAddresses() throws Exception {
        PinSetStore store = store();
        publish("api.example.com-3.json", "valid-proof", "honest");
        UpdateEvent event = builtUpdater(store).refreshNow(HOST);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
        publish("api.example.com-666.json", "fork", "rogue");
        event = builtUpdater(store).refreshNow(HOST);
        assertEquals(DocumentRejection.Code.LOG_FORK, event.rejection().code(), event.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reportPaths.size() < 2 && System.nanoTime() < deadline) Thread.sleep(20);
        Thread.sleep(200); // anything more that was queued arrives too
        assertEquals(List.of("/app-reports", "/reports"), reportPaths.stream().sorted().collect(Collectors.toList()));
        assertEquals(reports.get(0), reports.get(1));
        assertEquals("log-fork", Json.parseObject(reports.get(0).getBytes(StandardCharsets.UTF_8)).get("pinset-report"));

        // Restarted: the persisted set and the largest checkpoint are back, and so is the fork. The honest log's next
        // checkpoint is consistent with the one held, but its key signed the fork: refused until a trust document
        // names another log key (what LogUpdateTest's rotation case accepts), and the largest checkpoint stays.
        PinSetStore restarted = store();
        PinSetUpdater updater = builtUpdater(restarted);
        assertEquals(3, version(restarted));
        publish("api.example.com-3.json", "consistent-larger-checkpoint", "honest");
        event = updater.refreshNow(HOST);
        assertEquals(DocumentRejection.Code.NOT_LOGGED, event.rejection().code(), event.toString());
        assertEquals(LogError.Code.UNKNOWN_ORIGIN, event.logError().code(), event.toString());
        assertArrayEquals(VectorTest.read("log/notes/honest-42.note"),
                new PinStorage(storage).loadCheckpoint("pins.example.com/log"));

        // A fork file whose notes do not verify (edited, or of another key) leaves out no key.
        File evidence = new File(storage, "log-fork-" + Base64Codec.encodeUrl("pins.example.com/log".getBytes(StandardCharsets.UTF_8)) + "-1.json");
        Files.write(evidence.toPath(), reports.get(0).replace("pins.example.com/log\\u000a42\\u000a", "pins.example.com/log\\u000a43\\u000a").getBytes(StandardCharsets.UTF_8));
        PinSetStore clean = store();
        event = builtUpdater(clean).refreshNow(HOST);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
    }

    /** Bundled documents (pinset export) under a policy need their proofs in proofs/<host>, checked offline. */
    @Test
    void aBundledDocumentNeedsItsProof() throws Exception {
        LogPolicy policy = LogPolicy.parse(VectorTest.read("log/policy.txt"));
        Map<String, String> proofs = Map.of("valid-proof", "accept", "wrong-root", "notLogged", "", "notLogged");
        for (Map.Entry<String, String> entry : proofs.entrySet()) {
            File bundle = new File(storage, "bundle-" + entry.getKey());
            new File(bundle, "pins").mkdirs();
            new File(bundle, "proofs").mkdirs();
            Files.write(new File(bundle, "pins/" + HOST).toPath(), VectorTest.read("log/documents/api.example.com-3.json"));
            if (!entry.getKey().isEmpty()) {
                Files.write(new File(bundle, "proofs/" + HOST).toPath(), VectorTest.read("log/proofs/" + entry.getKey() + ".proof"));
            }
            PinSetStore store = store();
            Object outcome = store.installBundledDocuments(bundle, policy).get(HOST);
            String result = outcome instanceof DocumentRejection ? ((DocumentRejection) outcome).code().wireName() : "accept";
            assertEquals(entry.getValue(), result, entry.getKey() + ": " + outcome);
            assertEquals(entry.getValue().equals("accept") ? 3 : 0, version(store));
            // Without a policy the same folder installs, as before.
            assertEquals(3, ((VerifiedDocument) store().installBundledDocuments(bundle).get(HOST)).pinSet().version());
        }
    }

    /** A {@code pinset export}-shaped folder holding one document and, when {@code proof} is not null, its proof. */
    private File bundle(String name, String document, String proof) throws Exception {
        File bundle = new File(storage, "bundle-" + name);
        new File(bundle, "pins").mkdirs();
        new File(bundle, "proofs").mkdirs();
        Files.write(new File(bundle, "pins/" + HOST).toPath(), VectorTest.read("log/documents/" + document));
        if (proof != null) {
            Files.write(new File(bundle, "proofs/" + HOST).toPath(), VectorTest.read("log/proofs/" + proof + ".proof"));
        }
        return bundle;
    }

    private static String code(Object outcome) {
        return outcome instanceof DocumentRejection ? ((DocumentRejection) outcome).code().wireName() : "accept";
    }

    /**
     * PROTOCOL §7.4 (issue 35), every path that installs a document: after a fork no document under that log key is
     * accepted, whichever way it comes. The fork is made as the other tests make it (the honest checkpoint held, then
     * the split view's), then the app restarts without its persisted set: a bundled folder with or without the
     * policy, a bundled stream with or without its proof, {@code installTrusted} and {@code accept} are all refused,
     * while the same bundle installs in a store no updater with that fork keeps. A bundle installed before the
     * updater read the fork back is dropped then; the persisted set in force from before the fork comes back.
     */
    @Test
    void everyInstallPathRefusesADocumentUnderAForkedLogKey() throws Exception {
        publish("api.example.com-3.json", "valid-proof", "honest");
        assertEquals(UpdateEvent.Kind.UPDATED, builtUpdater(store()).refreshNow(HOST).kind());
        publish("api.example.com-666.json", "fork", "rogue");
        assertEquals(DocumentRejection.Code.LOG_FORK, builtUpdater(store()).refreshNow(HOST).rejection().code());
        File persisted = new File(storage, HOST + ".pinset.jws.json");
        byte[] inForce = Files.readAllBytes(persisted.toPath());
        assertTrue(persisted.delete());

        // The honest document with its honest proof: its checkpoint is signed by the log key that signed the fork.
        File bundle = bundle("honest", "api.example.com-3.json", "valid-proof");
        byte[] document = VectorTest.read("log/documents/api.example.com-3.json");
        byte[] proof = VectorTest.read("log/proofs/valid-proof.proof");
        LogPolicy policy = LogPolicy.parse(VectorTest.read("log/policy.txt"));
        assertEquals("accept", code(store().installBundledDocuments(bundle, policy).get(HOST)), "the bundle itself is fine");

        PinSetStore restarted = store();
        builtUpdater(restarted);
        Object outcome = restarted.installBundledDocuments(bundle, policy).get(HOST);
        assertEquals("notLogged", code(outcome), String.valueOf(outcome));
        assertTrue(((DocumentRejection) outcome).getMessage().contains("signed a fork"), String.valueOf(outcome));
        assertEquals("notLogged", code(restarted.installBundledDocuments(bundle).get(HOST)), "the updater's policy applies");
        DocumentRejection refused = org.junit.jupiter.api.Assertions.assertThrows(DocumentRejection.class,
                () -> restarted.installBundledDocument(HOST, new java.io.ByteArrayInputStream(document),
                        new java.io.ByteArrayInputStream(proof), null));
        assertEquals(DocumentRejection.Code.NOT_LOGGED, refused.code());
        assertTrue(refused.getMessage().contains("signed a fork"), refused.getMessage());
        refused = org.junit.jupiter.api.Assertions.assertThrows(DocumentRejection.class,
                () -> restarted.installBundledDocument(HOST, new java.io.ByteArrayInputStream(document)));
        assertEquals(DocumentRejection.Code.NOT_LOGGED, refused.code(), "a stream without its proof");
        refused = org.junit.jupiter.api.Assertions.assertThrows(DocumentRejection.class,
                () -> restarted.installTrusted(document, HOST));
        assertEquals(DocumentRejection.Code.NOT_LOGGED, refused.code());
        long now = Rfc3339.parse((String) Json.parseObject(VectorTest.read("manifest.json")).get("now"));
        refused = org.junit.jupiter.api.Assertions.assertThrows(DocumentRejection.class,
                () -> restarted.accept(document, HOST, now));
        assertEquals(DocumentRejection.Code.NOT_LOGGED, refused.code());
        assertEquals(0, version(restarted));

        // The order of docs/ANDROID.md: the bundle first, then the updater, which reads the fork back and drops it.
        PinSetStore early = store();
        assertEquals("accept", code(early.installBundledDocuments(bundle, policy).get(HOST)));
        assertEquals(3, version(early));
        events.clear();
        builtUpdater(early);
        assertEquals(0, version(early), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.REJECTED && HOST.equals(e.host())
                && e.rejection().code() == DocumentRejection.Code.NOT_LOGGED), events.toString());

        // The persisted set was in force before the fork: PROTOCOL §7.4 keeps it, across the restart too.
        Files.write(persisted.toPath(), inForce);
        PinSetStore kept = store();
        builtUpdater(kept);
        assertEquals(3, version(kept));
    }

    /**
     * A bundled proof whose checkpoint has the size of the largest accepted but another root is a fork by itself
     * (PROTOCOL §7.4): refused with {@code logFork}, told to the application with both notes, kept, and sent to the
     * application's address and the pin server's {@code /reports} with an empty {@code proof}; then the log key is
     * blocked for the honest bundle too.
     */
    @Test
    void aBundledProofOfTheHeldSizeWithAnotherRootIsAForkReportedAndBlocked() throws Exception {
        new PinStorage(storage).saveCheckpoint("pins.example.com/log", VectorTest.read("log/notes/honest-300.note"));
        PinSetStore store = store();
        builtUpdater(store);
        Object outcome = store.installBundledDocuments(bundle("rogue", "api.example.com-666.json", "fork-same-size"))
                .get(HOST);
        assertEquals("logFork", code(outcome), String.valueOf(outcome));
        assertEquals(0, version(store));
        UpdateEvent fork = events.stream().filter(e -> e.kind() == UpdateEvent.Kind.LOG_FORK).findFirst().orElseThrow();
        assertArrayEquals(VectorTest.read("log/notes/honest-300.note"), fork.inForce());
        assertArrayEquals(VectorTest.read("log/notes/rogue-300.note"), fork.offered());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reportPaths.size() < 2 && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(List.of("/app-reports", "/reports"), reportPaths.stream().sorted().collect(Collectors.toList()));
        Map<String, Object> report = Json.parseObject(reports.get(0).getBytes(StandardCharsets.UTF_8));
        assertEquals("log-fork", report.get("pinset-report"));
        assertEquals(List.of(), report.get("proof"));
        assertEquals("/pins/" + HOST, report.get("document"));
        assertTrue(new File(storage, "log-fork-" + Base64Codec.encodeUrl("pins.example.com/log".getBytes(StandardCharsets.UTF_8))
                + "-1.json").isFile());
        outcome = store.installBundledDocuments(bundle("honest", "api.example.com-3.json", "consistent-larger-checkpoint"))
                .get(HOST);
        assertEquals("notLogged", code(outcome), String.valueOf(outcome));
        assertEquals(0, version(store));
    }

    /** A tile of an older tree that the log no longer serves is read from the full tile that replaced it. */
    @Test
    void anOlderPartialTileIsReadFromTheFullOne() throws Exception {
        new PinStorage(storage).saveCheckpoint("pins.example.com/log", VectorTest.read("log/notes/honest-20.note"));
        PinSetStore store = store();
        PinSetUpdater updater = updater(store);
        publish("api.example.com-3.json", "valid-proof", "honest");
        assertTrue(!new File(VectorTest.ROOT, "log/tiles/honest/tile/0/000.p/42").exists());
        UpdateEvent event = updater.refreshNow(HOST);
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), event.toString());
        assertArrayEquals(VectorTest.read("log/notes/honest-42.note"), new PinStorage(storage).loadCheckpoint("pins.example.com/log"));
    }

    /**
     * A log key the policy does not name but trust version 1 lists in {@code logKeys}: that document's own proof is
     * checked under the state it makes (its root keys vouch for the key), then the pin document's too; without the
     * key in the trust document, neither is accepted.
     */
    @Test
    void aLogKeyNamedByTheTrustDocumentSignsItsOwnProofAndTheNextDocuments() throws Exception {
        Map<?, ?> rotation = (Map<?, ?>) Json.parseObject(VectorTest.read("log/manifest.json")).get("rotation");
        Map<?, ?> keys = (Map<?, ?>) Json.parseObject(VectorTest.read("manifest.json")).get("keys");
        for (String name : List.of("named", "unnamed")) {
            Map<?, ?> files = (Map<?, ?>) rotation.get(name);
            served.clear();
            served.put("/trust", VectorTest.read((String) files.get("trust")));
            served.put("/trust/1", VectorTest.read((String) files.get("trust")));
            served.put("/trust/1/proof", VectorTest.read((String) files.get("trustProof")));
            served.put("/pins/" + HOST, VectorTest.read((String) files.get("document")));
            served.put("/pins/" + HOST + "/proof", VectorTest.read((String) files.get("documentProof")));
            TrustStore trust = new TrustStore(TrustState.ofRootKeys(VectorTest.keys(List.of("R1"), keys), 1));
            PinSetStore store = new PinSetStore(new DocumentVerifier(List.of(), trust, new JdkEd25519Verifier(), 300_000),
                    new PinningOptions());
            events.clear();
            PinSetUpdater updater = updater(store, new File(storage, name));
            boolean named = name.equals("named");
            assertEquals(named, updater.refreshTrust(), name + ": " + events);
            assertEquals(named ? 1 : 0, trust.current().version());
            if (named) {
                assertEquals(1, trust.current().logKeys().size());
                assertEquals(UpdateEvent.Kind.UPDATED, updater.refreshNow(HOST).kind(), events.toString());
                assertEquals(3, version(store));
            } else {
                UpdateEvent refused = events.stream().filter(e -> e.kind() == UpdateEvent.Kind.TRUST_REJECTED).findFirst()
                        .orElseThrow();
                assertEquals(TrustRejection.Code.NOT_LOGGED, refused.trustRejection().code());
                assertEquals(LogError.Code.UNSIGNED, refused.logError().code());
            }
        }
    }
}
