package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The updater's trust half over the vector files (served from memory by path): a signing key dropped by a new trust
 * document (PROTOCOL §6.2, and §6.3's planned rotation to a next key) makes the host re-fetch at once, and a
 * document refused for an unknown key walks the trust first.
 */
class TrustUpdateTest {
    private final Map<String, byte[]> served = new HashMap<>();
    private final List<UpdateEvent> events = new ArrayList<>();
    private final List<String> requests = new ArrayList<>();
    private final PinSetTransport transport = (url, headers) -> {
        String path = url.substring("http://pins.test".length());
        requests.add(path);
        byte[] body = served.get(path);
        return body == null ? new TransportResponse(404, Map.of(), null) : new TransportResponse(200, Map.of(), body);
    };

    private static byte[] read(String path) throws Exception {
        return VectorTest.read(path);
    }

    private static TrustedKey key(String name) throws Exception {
        Map<?, ?> keys = (Map<?, ?>) Json.parseObject(read("manifest.json")).get("keys");
        return TrustedKey.fromRaw(Base64Codec.decodeUrl((String) keys.get(name)));
    }

    private static long now() throws Exception {
        return Rfc3339.parse((String) Json.parseObject(read("manifest.json")).get("now"));
    }

    @Test
    void aDroppedSigningKeyMakesTheHostRefetchAtOnce() throws Exception {
        Ed25519Verifier ed25519 = new JdkEd25519Verifier();
        TrustStore trust = new TrustStore(TrustState.ofRootKeys(List.of(key("R1")), 1));
        trust.advance(TrustRules.verifyNext(read("trust/chain-v1.json"), trust.current(), ed25519)); // delegates S2
        PinSetStore store = new PinSetStore(new DocumentVerifier(List.of(), trust, ed25519, 300_000), new PinningOptions());
        long now = now();
        store.accept(read("documents/delegated-signing-key.json"), "api.example.com", now);
        assertEquals(key("S2").kid(), store.document("api.example.com").kid());

        // Version 2 delegates S1 only; the host's document is now signed by S1.
        served.put("/trust", read("trust/update-v2.json"));
        served.put("/pins/api.example.com", read("documents/valid.json"));
        PinSetUpdater updater = new PinSetUpdater(new PinSetUpdater.Configuration("http://pins.test",
                List.of("api.example.com")), store, transport, null, null, () -> now, events::add);
        assertTrue(updater.refreshTrust());
        assertEquals(2, trust.current().version());
        List<String> dropped = List.of(key("S2").kid());
        assertTrue(events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.TRUST_UPDATED
                && e.droppedKids().equals(dropped)), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.kind() == UpdateEvent.Kind.SIGNING_KEY_DROPPED
                && e.host().equals("api.example.com")), events.toString());
        assertEquals(key("S1").kid(), store.document("api.example.com").kid());
        assertEquals(List.of("/trust", "/pins/api.example.com"), requests);
    }

    @Test
    void aDocumentByAnUnknownKeyWalksTheTrustThenIsFetchedAgain() throws Exception {
        Ed25519Verifier ed25519 = new JdkEd25519Verifier();
        TrustStore trust = new TrustStore(TrustState.ofRootKeys(List.of(key("R1")), 1));
        PinSetStore store = new PinSetStore(new DocumentVerifier(List.of(), trust, ed25519, 300_000), new PinningOptions());
        long now = now();
        served.put("/trust", read("trust/chain-v1.json"));
        served.put("/pins/api.example.com", read("documents/delegated-signing-key.json"));
        PinSetUpdater updater = new PinSetUpdater(new PinSetUpdater.Configuration("http://pins.test",
                List.of("api.example.com")), store, transport, null, null, () -> now, events::add);
        UpdateEvent event = updater.refreshNow("api.example.com");
        assertEquals(UpdateEvent.Kind.UPDATED, event.kind(), events.toString());
        assertEquals(1, trust.current().version());
        assertEquals(List.of("/pins/api.example.com", "/trust", "/pins/api.example.com"), requests);
    }

    @Test
    void persistedTrustIsWalkedAgainFromTheShippedRootsOnStart() throws Exception {
        java.io.File directory = Processes.temporaryDirectory("pinset-jvm-trust");
        try {
            PinStorage storage = new PinStorage(directory);
            storage.saveTrust(1, read("trust/chain-v1.json"));
            storage.saveTrust(2, read("trust/update-v2.json"));
            storage.save("api.example.com", read("documents/valid.json"));
            Ed25519Verifier ed25519 = new BouncyCastleEd25519Verifier();
            TrustStore trust = new TrustStore(TrustState.ofRootKeys(List.of(key("R1")), 1));
            PinSetStore store = new PinSetStore(new DocumentVerifier(List.of(), trust, ed25519, 300_000), new PinningOptions());
            new PinSetUpdater(new PinSetUpdater.Configuration("http://pins.test", List.of("api.example.com")), store,
                    transport, storage, null, null, events::add).loadPersisted();
            assertEquals(2, trust.current().version());
            assertEquals(3, store.acceptedVersion("api.example.com").version());
            assertEquals(List.of(UpdateEvent.Kind.TRUST_LOADED, UpdateEvent.Kind.LOADED),
                    events.stream().map(UpdateEvent::kind).collect(java.util.stream.Collectors.toList()));
        } finally {
            Processes.deleteTree(directory);
        }
    }
}
