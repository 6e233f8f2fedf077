package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared vectors of Tests/Vectors (issue 23) through the JVM client; SharedVectorTests.swift runs the same
 * manifest through the Swift client, so both must reach the same decision on every case.
 */
class VectorTest {
    static final File ROOT = new File(System.getProperty("pinset.vectors", "../../Tests/Vectors"));
    /** The verifier of the case running; JUnit runs dynamic tests one at a time. */
    static Ed25519Verifier ED25519 = new JdkEd25519Verifier();

    @TestFactory
    Stream<DynamicTest> everyCaseOfTheManifest() throws Exception {
        return cases(new JdkEd25519Verifier());
    }

    /** The same cases with the verifier Android apps below API 33 pass. */
    @TestFactory
    Stream<DynamicTest> everyCaseWithBouncyCastle() throws Exception {
        return cases(new BouncyCastleEd25519Verifier());
    }

    static Stream<DynamicTest> cases(Ed25519Verifier verifier) throws Exception {
        Map<String, Object> manifest = Json.parseObject(read("manifest.json"));
        long now = Rfc3339.parse((String) manifest.get("now"));
        Map<?, ?> keys = (Map<?, ?>) manifest.get("keys");
        List<DynamicTest> tests = new ArrayList<>();
        for (Object value : (List<?>) manifest.get("cases")) {
            Map<?, ?> entry = (Map<?, ?>) value;
            tests.add(DynamicTest.dynamicTest((String) entry.get("name"), () -> {
                ED25519 = verifier;
                run(entry, keys, now);
            }));
        }
        assertTrue(tests.size() >= 80, "the manifest lists every case");
        return tests.stream();
    }

    static String run(Map<?, ?> entry, Map<?, ?> keys, long now) throws Exception {
        Map<?, ?> expect = (Map<?, ?>) entry.get("expect");
        String outcome;
        switch ((String) entry.get("kind")) {
            case "document": outcome = document(entry, keys, now); break;
            case "trustWalk": outcome = trustWalk(entry, keys, now); break;
            case "trustUpdate": outcome = trustUpdate(entry, keys, now); break;
            case "evaluate": outcome = evaluate(entry, keys, now); break;
            case "trustBundled": outcome = trustBundled(entry); break;
            default: throw new AssertionError("unknown kind " + entry.get("kind"));
        }
        assertEquals(expected(expect, entry), outcome, (String) entry.get("name"));
        return outcome;
    }

    static String expected(Map<?, ?> expect, Map<?, ?> entry) {
        if (entry.get("kind").equals("evaluate")) {
            return expect.get("decision") + " allowed=" + expect.get("allowed")
                    + (expect.containsKey("notedHost") ? " noted=" + expect.get("notedHost") : "");
        }
        if (expect.containsKey("reject")) {
            return "reject " + expect.get("reject") + (expect.containsKey("version") ? " version=" + expect.get("version") : "");
        }
        return "accept version=" + expect.get("version");
    }

    static byte[] read(String path) throws IOException {
        return Files.readAllBytes(new File(ROOT, path).toPath());
    }

    static List<TrustedKey> keys(Object names, Map<?, ?> keys) {
        List<TrustedKey> result = new ArrayList<>();
        for (Object name : (List<?>) names) result.add(TrustedKey.fromRaw(Base64Codec.decodeUrl((String) keys.get(name))));
        return result;
    }

    static TrustStore trustStore(Map<?, ?> spec, Map<?, ?> keys, Object chain) throws Exception {
        TrustStore store = new TrustStore(TrustState.ofRootKeys(keys(spec.get("rootKeys"), keys), ((Long) spec.get("threshold")).intValue()));
        for (Object path : (List<?>) chain) store.advance(TrustRules.verifyNext(read((String) path), store.current(), ED25519));
        return store;
    }

    static String document(Map<?, ?> entry, Map<?, ?> keys, long now) throws Exception {
        Map<?, ?> trust = (Map<?, ?>) entry.get("trust");
        TrustStore store = trust == null ? null : trustStore(trust, keys, trust.get("chain"));
        DocumentVerifier verifier = new DocumentVerifier(keys(entry.get("trustedKeys"), keys), store, ED25519, 300_000);
        Map<?, ?> last = (Map<?, ?>) entry.get("lastAccepted");
        AcceptedVersion floor = last == null ? null
                : new AcceptedVersion((Long) last.get("version"), Rfc3339.parse((String) last.get("issuedAt")));
        try {
            VerifiedDocument document = verifier.verify(read((String) entry.get("document")), (String) entry.get("host"), now, floor);
            return "accept version=" + document.pinSet().version();
        } catch (DocumentRejection rejection) {
            return "reject " + rejection.code().wireName();
        }
    }

    static String trustWalk(Map<?, ?> entry, Map<?, ?> keys, long now) throws Exception {
        TrustState shipped = TrustState.ofRootKeys(keys(entry.get("rootKeys"), keys), ((Long) entry.get("threshold")).intValue());
        List<byte[]> documents = new ArrayList<>();
        for (Object path : (List<?>) entry.get("documents")) documents.add(read((String) path));
        int maxSteps = entry.containsKey("maxSteps") ? ((Long) entry.get("maxSteps")).intValue() : TrustRules.MAX_WALK_STEPS;
        try {
            return "accept version=" + TrustRules.walk(documents, shipped, now, 300_000, ED25519, maxSteps).version();
        } catch (TrustRejection rejection) {
            return "reject " + rejection.code().wireName();
        }
    }

    static String trustBundled(Map<?, ?> entry) throws Exception {
        try {
            return "accept version=" + TrustState.ofBundledDocument(read((String) entry.get("document")), ED25519).version();
        } catch (TrustRejection rejection) {
            return "reject " + rejection.code().wireName();
        }
    }

    /** The updater's own trust refresh, against a map of paths to files standing in for the server. */
    static String trustUpdate(Map<?, ?> entry, Map<?, ?> keys, long now) throws Exception {
        TrustStore store = trustStore(entry, keys, entry.get("inForce"));
        Map<String, byte[]> served = new HashMap<>();
        for (Map.Entry<?, ?> path : ((Map<?, ?>) entry.get("served")).entrySet()) {
            served.put((String) path.getKey(), read((String) path.getValue()));
        }
        PinSetTransport transport = (url, headers) -> {
            byte[] body = served.get(url.substring("http://pins.test".length()));
            return body == null ? new TransportResponse(404, Map.of(), null) : new TransportResponse(200, Map.of(), body);
        };
        PinSetStore pins = new PinSetStore(new DocumentVerifier(List.of(), store, ED25519, 300_000), new PinningOptions());
        List<TrustRejection> rejections = new ArrayList<>();
        PinSetUpdater updater = new PinSetUpdater(new PinSetUpdater.Configuration("http://pins.test", List.of()), pins,
                transport, null, null, () -> now, event -> {
                    if (event.trustRejection() != null) rejections.add(event.trustRejection());
                });
        updater.refreshTrust();
        long version = store.current().version();
        if (!rejections.isEmpty()) return "reject " + rejections.get(0).code().wireName() + " version=" + version;
        return "accept version=" + version;
    }

    static String evaluate(Map<?, ?> entry, Map<?, ?> keys, long now) throws Exception {
        Map<?, ?> spec = (Map<?, ?>) entry.get("options");
        PinningOptions options = new PinningOptions();
        options.denyUnpinnedHosts = Boolean.TRUE.equals(spec.get("denyUnpinnedHosts"));
        options.allowMissingSets = Boolean.TRUE.equals(spec.get("allowMissingSets"));
        options.stopPinningStaleSets = Boolean.TRUE.equals(spec.get("stopPinningStaleSets"));
        PinSetStore store = new PinSetStore(new DocumentVerifier(keys(List.of("S1"), keys), null, ED25519, 300_000), options);
        List<String> expected = new ArrayList<>();
        for (Object host : (List<?>) entry.get("expectSets")) expected.add((String) host);
        store.expectSets(expected);
        for (Object path : (List<?>) entry.get("documents")) {
            String name = new File((String) path).getName();
            store.installTrusted(read((String) path), name.substring(4, name.length() - 5));
        }
        List<byte[]> chain = new ArrayList<>();
        for (Object path : (List<?>) entry.get("chain")) chain.add(read((String) path));
        TrustDecision decision = store.evaluate(chain, (String) entry.get("host"), now);
        boolean noted = ((Map<?, ?>) entry.get("expect")).containsKey("notedHost");
        return decision.kind().wireName() + " allowed=" + decision.allowsConnection()
                + (noted ? " noted=" + decision.notedHost() : "");
    }
}
