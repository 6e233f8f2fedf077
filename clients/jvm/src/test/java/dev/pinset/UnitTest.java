package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import dev.pinset.internal.HostNames;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The small pieces the vectors do not reach on their own. */
class UnitTest {
    @Test
    void base64RoundTripsAndRefusesWhatTheSwiftClientRefuses() {
        for (int length = 0; length < 70; length++) {
            byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++) bytes[i] = (byte) (i * 37 + length);
            assertArrayEquals(bytes, Base64Codec.decodeUrl(Base64Codec.encodeUrl(bytes)));
            if (length > 0) assertArrayEquals(bytes, Base64Codec.decodeStandard(Base64Codec.encodeStandard(bytes)));
            assertEquals(java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), Base64Codec.encodeUrl(bytes));
            assertEquals(java.util.Base64.getEncoder().encodeToString(bytes), Base64Codec.encodeStandard(bytes));
        }
        assertNull(Base64Codec.decodeUrl("AAAA="));
        assertNull(Base64Codec.decodeUrl("A"));
        assertNull(Base64Codec.decodeUrl("AA+A"));
        assertNull(Base64Codec.decodeStandard("AAA"));
        assertNull(Base64Codec.decodeStandard("AA-_"));
    }

    @Test
    void everyRefusalIsOnePinSetRejectionWithItsOwnCodes() {
        // Issue 36 item 4: one coded base; each subclass keeps its own enum, so existing callers compile unchanged.
        List<PinSetRejection> refusals = List.of(
                new DocumentRejection(DocumentRejection.Code.UNKNOWN_KEY, "kid k9 names no trusted key"),
                new TrustRejection(TrustRejection.Code.VERSION_NOT_NEXT, "version 3 after 1"),
                new LogError(LogError.Code.QUORUM_NOT_MET, "1 of 2 witnesses"));
        List<String> wire = new ArrayList<>();
        for (PinSetRejection refusal : refusals) {
            wire.add(refusal.wireName());
            assertEquals(refusal.code().wireName(), refusal.wireName());
            assertEquals(refusal.wireName() + ": " + refusal.detail(), refusal.getMessage());
        }
        assertEquals(List.of("unknownKey", "versionNotNext", "quorumNotMet"), wire);
        DocumentRejection.Code narrowed = new DocumentRejection(DocumentRejection.Code.LOG_FORK, "x").code();
        assertEquals(DocumentRejection.Code.LOG_FORK, narrowed);
        assertTrue(Exception.class.isAssignableFrom(PinSetRejection.class));
    }

    /**
     * Issue 39: public only what an app uses. The public top-level types of dev.pinset are exactly these 29 (42 before),
     * and no public member of a public type (nested ones included) names a type of the library that is not public
     * (nor one of dev.pinset.internal), so an app can call all it sees and sees nothing it cannot call.
     */
    @Test
    void thePublicApiIsWhatAnAppUses() throws Exception {
        List<String> expected = List.of("AcceptedVersion", "BouncyCastleEd25519Verifier", "DebugProxyOverride",
                "DocumentRejection", "DocumentVerifier", "Ed25519Verifier", "JdkEd25519Verifier", "LogError", "LogPolicy",
                "Pin", "PinFailure", "PinFailureReporter", "PinSet", "PinSetOkHttp", "PinSetRejection", "PinSetStore",
                "PinSetTransport", "PinSetUpdater", "PinStorage", "PinningOptions", "PinningTrustManager",
                "TransportResponse", "TrustDecision", "TrustRejection", "TrustState", "TrustStore", "TrustedKey",
                "UpdateEvent", "VerifiedDocument");
        File sources = new File(System.getProperty("pinset.sources", "clients/jvm/src/main/java/dev/pinset"));
        List<String> declared = new ArrayList<>();
        for (File file : sources.listFiles((dir, name) -> name.endsWith(".java") && !name.equals("package-info.java"))) {
            String name = file.getName().replace(".java", "");
            if (Pattern.compile("^public .*\\b(class|interface|enum) " + name + "\\b", Pattern.MULTILINE)
                    .matcher(Files.readString(file.toPath())).find()) {
                declared.add(name);
            }
        }
        java.util.Collections.sort(declared);
        assertEquals(expected, declared);
        List<String> leaks = new ArrayList<>();
        List<Class<?>> types = new ArrayList<>();
        for (String name : expected) types.add(Class.forName("dev.pinset." + name));
        for (int i = 0; i < types.size(); i++) {
            Class<?> type = types.get(i);
            for (Class<?> nested : type.getDeclaredClasses()) {
                if (java.lang.reflect.Modifier.isPublic(nested.getModifiers())) types.add(nested);
            }
            List<String> signatures = new ArrayList<>();
            if (type.getGenericSuperclass() != null) signatures.add(type.getGenericSuperclass().getTypeName());
            for (java.lang.reflect.Type face : type.getGenericInterfaces()) signatures.add(face.getTypeName());
            for (java.lang.reflect.Method method : type.getMethods()) {
                signatures.add(method.toGenericString());
            }
            for (java.lang.reflect.Constructor<?> constructor : type.getConstructors()) {
                signatures.add(constructor.toGenericString());
            }
            for (java.lang.reflect.Field field : type.getFields()) signatures.add(field.toGenericString());
            for (String signature : signatures) {
                Matcher named = Pattern.compile("dev\\.pinset\\.([A-Za-z0-9_.$]+)").matcher(signature);
                while (named.find()) {
                    String top = named.group(1).split("[.$]")[0];
                    if (!expected.contains(top)) leaks.add(type.getName() + ": " + signature);
                }
            }
        }
        assertEquals(List.of(), leaks);
    }

    /**
     * Issue 39: a Kotlin caller gets {@code T?} wherever a value can be missing, so a getter of a public type that
     * returns {@code null} must say so with {@code @Nullable} (JSR-305, kept at run time). Every public no-argument
     * getter is called on values where the optional parts are missing: an unpinned host's decision, trust version 0,
     * events without a host or a detail.
     */
    @Test
    void everyPublicGetterThatReturnsNullIsAnnotatedNullable() throws Exception {
        Map<?, ?> keys = (Map<?, ?>) Json.parseObject(VectorTest.read("manifest.json")).get("keys");
        PinSetStore store = new PinSetStore(new DocumentVerifier(VectorTest.keys(List.of("S1"), keys), null,
                new JdkEd25519Verifier(), 300_000), new PinningOptions());
        List<Object> values = List.of(
                store.evaluate(List.of(new byte[] {1}), "unpinned.example.com", 0),
                TrustState.ofRootKeys(VectorTest.keys(List.of("R1"), keys), 1),
                UpdateEvent.of(UpdateEvent.Kind.NOT_MODIFIED, "api.example.com", 0, null),
                UpdateEvent.of(UpdateEvent.Kind.TRUST_FETCH_FAILED, null, 0, "GET /trust failed"));
        List<String> unannotated = new ArrayList<>();
        int nulls = 0;
        for (Object value : values) {
            for (java.lang.reflect.Method method : value.getClass().getDeclaredMethods()) {
                int modifiers = method.getModifiers();
                if (!java.lang.reflect.Modifier.isPublic(modifiers) || java.lang.reflect.Modifier.isStatic(modifiers)
                        || method.getParameterCount() != 0 || method.getReturnType().isPrimitive()) {
                    continue;
                }
                if (method.invoke(value) != null) continue;
                nulls++;
                if (!method.isAnnotationPresent(javax.annotation.Nullable.class)) {
                    unannotated.add(value.getClass().getSimpleName() + "." + method.getName() + "()");
                }
            }
        }
        assertTrue(nulls >= 8, "the values exercise the optional parts: " + nulls);
        assertEquals(List.of(), unannotated);
    }

    @Test
    void rfc3339ParsesAndFormatsAsTheSwiftClientDoes() {
        assertEquals(0L, Rfc3339.parse("1970-01-01T00:00:00Z"));
        assertEquals(1_790_000_000_000L, Rfc3339.parse(Rfc3339.format(1_790_000_000_000L)));
        assertEquals("2026-11-21T14:32:57Z", Rfc3339.format(Rfc3339.parse("2026-11-21T14:32:57.999Z")));
        assertEquals(Rfc3339.parse("2026-11-21T12:32:57Z"), Rfc3339.parse("2026-11-21T14:32:57+02:00"));
        assertEquals(Rfc3339.parse("2024-02-29T00:00:00Z") + 86_400_000L, Rfc3339.parse("2024-03-01t00:00:00z"));
        for (String bad : new String[] {"2025-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-21 14:32:57Z",
                "2026-11-21T14:32:57", "2026-11-21T24:00:00Z", "2026-11-21T14:32:57.Z", "2026-11-21T14:32:57+0200"}) {
            assertNull(Rfc3339.parse(bad), bad);
        }
    }

    @Test
    void jsonIsStrict() throws Exception {
        assertEquals(Map.of("a", List.of(1L, 2.5, "x\u00e9\n", true, Json.NULL)),
                Json.parse("{\"a\":[1,2.5,\"x\\u00e9\\n\",true,null]}"));
        for (String bad : new String[] {"", "{", "{\"a\":1,}", "[1,]", "01", "1.", "{'a':1}", "\"\u0001\"", "{} x", "nul"}) {
            assertThrows(Json.ParseException.class, () -> Json.parse(bad), bad);
        }
        assertThrows(Json.ParseException.class, () -> Json.parse(new byte[] {'"', (byte) 0xC3, '"'}));
        assertThrows(Json.ParseException.class, () -> Json.parse("[".repeat(100) + "]".repeat(100)));
    }

    @Test
    void hostNamesAreNormalisedAsTheSwiftClientDoes() throws Exception {
        assertEquals("api.example.com", HostNames.normalize("API.Example.com."));
        for (String bad : new String[] {"", ".", "a..b", "-a.com", "a-.com", "a.com:443", "127.0.0.1", "bücher.de", "a_b.com"}) {
            assertThrows(HostNames.InvalidHostException.class, () -> HostNames.normalize(bad), bad);
        }
    }

    @Test
    void delaysFollowMaxAgeAndBackOff() {
        PinSetUpdater.Configuration configuration = new PinSetUpdater.Configuration("https://pins.test/", List.of("A.test"));
        assertEquals("https://pins.test", configuration.server);
        assertEquals(List.of("a.test"), configuration.hosts);
        assertEquals(120_000, PinSetUpdater.nextDelayMillis(120, 0, configuration, 0));
        assertEquals(132_000, PinSetUpdater.nextDelayMillis(120, 0, configuration, 1));
        assertEquals(60_000, PinSetUpdater.nextDelayMillis(1, 0, configuration, 0));
        assertEquals(86_400_000, PinSetUpdater.nextDelayMillis(1_000_000, 0, configuration, 0));
        assertEquals(3_600_000, PinSetUpdater.nextDelayMillis(null, 0, configuration, 0));
        assertEquals(5_000, PinSetUpdater.nextDelayMillis(120, 1, configuration, 0));
        assertEquals(40_000, PinSetUpdater.nextDelayMillis(120, 4, configuration, 0));
        assertEquals(3_600_000, PinSetUpdater.nextDelayMillis(120, 100, configuration, 0));
        assertEquals(300, new TransportResponse(200, Map.of("Cache-Control", "public, max-age=300"), null).maxAge());
        assertNull(new TransportResponse(200, Map.of("Cache-Control", "no-store"), null).maxAge());
        assertNull(new TransportResponse(200, Map.of("Cache-Control", "max-age=-1"), null).maxAge());
        assertNull(new TransportResponse(200, Map.of("Cache-Control", "max-age=\u0663\u0660\u0660"), null).maxAge());
        assertEquals(Integer.MAX_VALUE, new TransportResponse(200, Map.of("Cache-Control", "max-age=99999999999"), null).maxAge());
    }

    @Test
    void spkiPinsMatchTheOpensslPipeline() throws Exception {
        File directory = Processes.temporaryDirectory("pinset-jvm-unit");
        try (Processes processes = new Processes(directory)) {
            TestPki pki = new TestPki(processes);
            String leaf = pki.leaf("leaf");
            byte[] der = java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(new java.io.FileInputStream(new File(directory, leaf + ".pem"))).getEncoded();
            assertEquals(pki.pin(leaf), SpkiPin.ofCertificate(der));
            assertNull(SpkiPin.ofCertificate(new byte[] {0x30, 0x03, 0x02, 0x01, 0x01}));
            assertNull(SpkiPin.ofCertificate(new byte[0]));
        } finally {
            Processes.deleteTree(directory);
        }
    }

    @Test
    void ed25519VerifiersAgreeAndRefuseMalformedInput() throws Exception {
        java.security.KeyPair pair = java.security.KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        byte[] spki = pair.getPublic().getEncoded();
        byte[] raw = java.util.Arrays.copyOfRange(spki, 12, 44);
        java.security.Signature signer = java.security.Signature.getInstance("Ed25519");
        signer.initSign(pair.getPrivate());
        byte[] message = "pinset".getBytes(StandardCharsets.US_ASCII);
        signer.update(message);
        byte[] signature = signer.sign();
        assertEquals(TrustedKey.fromSpkiDer(spki), TrustedKey.fromRaw(raw));
        for (Ed25519Verifier verifier : new Ed25519Verifier[] {new JdkEd25519Verifier(), new BouncyCastleEd25519Verifier()}) {
            assertTrue(verifier.verify(raw, message, signature));
            signature[0] ^= 1;
            assertFalse(verifier.verify(raw, message, signature));
            signature[0] ^= 1;
            assertFalse(verifier.verify(new byte[31], message, signature));
            assertFalse(verifier.verify(raw, message, new byte[63]));
        }
    }

    /**
     * Android API 24 has none of these: java.nio.file and java.time (26), java.util.Base64 (26), java.net.http
     * (never), InputStream.transferTo (33), and the Java 9+ collection factories are only desugared, not present.
     */
    @Test
    void theLibraryUsesNoApiAndroid24Lacks() throws Exception {
        Pattern forbidden = Pattern.compile("java\\.nio\\.file|java\\.time|java\\.util\\.Base64|java\\.net\\.http"
                + "|transferTo\\(|readString\\(|(List|Map|Set)\\.of\\(|\\.repeat\\(|\\.strip\\(|\\.isBlank\\(|Class\\.forName"
                + "|getDeclared|setAccessible");
        File sources = new File(System.getProperty("pinset.sources", "clients/jvm/src/main/java/dev/pinset"));
        File[] files;
        try (java.util.stream.Stream<java.nio.file.Path> walk = Files.walk(sources.toPath())) {
            files = walk.map(java.nio.file.Path::toFile).filter(f -> f.getName().endsWith(".java")).toArray(File[]::new);
        }
        assertTrue(files.length > 20, "the library sources are at " + sources);
        List<String> found = new ArrayList<>();
        for (File file : files) {
            String[] lines = Files.readString(file.toPath()).split("\n");
            for (int i = 0; i < lines.length; i++) {
                String code = lines[i].replaceAll("^\\s*(/?\\*|//).*", "");
                Matcher matcher = forbidden.matcher(code);
                if (matcher.find()) found.add(file.getName() + ":" + (i + 1) + ": " + matcher.group());
            }
        }
        assertEquals(List.of(), found);
    }
}
