package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Sha256;
import dev.pinset.internal.MerkleHasher;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * PROTOCOL §7.4 through the JVM client: the shared log vectors of Tests/Vectors/log (LogVectorTests.swift runs the
 * same manifest through the Swift TransparencyLog, so both reach the same decision on every case), Go's x/mod
 * sumdb vectors (read from Tests/TransparencyLogTests/GoVectors.swift) and the C2SP specifications' own examples.
 */
class LogVectorTest {
    static final File ROOT = VectorTest.ROOT;

    @TestFactory
    Stream<DynamicTest> everyLogCase() throws Exception {
        return cases(new JdkEd25519Verifier());
    }

    @TestFactory
    Stream<DynamicTest> everyLogCaseWithBouncyCastle() throws Exception {
        return cases(new BouncyCastleEd25519Verifier());
    }

    static Stream<DynamicTest> cases(Ed25519Verifier ed25519) throws Exception {
        Map<String, Object> manifest = Json.parseObject(read("log/manifest.json"));
        LogProofVerifier verifier = new LogProofVerifier(LogPolicy.parse(read((String) manifest.get("policy"))), ed25519);
        List<DynamicTest> tests = new ArrayList<>();
        for (Object value : (List<?>) manifest.get("cases")) {
            Map<?, ?> entry = (Map<?, ?>) value;
            tests.add(DynamicTest.dynamicTest((String) entry.get("name"), () -> run(entry, verifier)));
        }
        assertTrue(tests.size() >= 18, "the manifest lists every case");
        return tests.stream();
    }

    static void run(Map<?, ?> entry, LogProofVerifier verifier) throws Exception {
        String name = (String) entry.get("name");
        Map<?, ?> expect = (Map<?, ?>) entry.get("expect");
        LogDecision decision = decide(entry, verifier);
        assertEquals(expect.get("decision"), decision.kind().name().toLowerCase(java.util.Locale.ROOT), name + ": " + decision);
        switch (decision.kind()) {
            case ACCEPTED:
                assertEquals(expect.get("largestSize"), decision.largest().checkpoint().size(), name);
                break;
            case REFUSED:
                assertEquals(expect.get("code"), decision.error().code().wireName(), name);
                break;
            default:
                assertArrayEquals(read((String) expect.get("kept")), decision.kept().bytes(), name);
                assertArrayEquals(read((String) expect.get("refused")), decision.refused().bytes(), name);
                checkForkEvidence(entry, decision);
        }
    }

    /**
     * PROTOCOL §3/§7.4: a fork's evidence beside its two notes. Of one size, no proof; across sizes, the consistency
     * proof from the smaller tree to the larger read from the tiles, which leads from the tiles' root at the smaller
     * size to the larger root but not from the smaller checkpoint's root (it is the proof that fails). The report
     * carries it as standard base64, in that order.
     */
    static void checkForkEvidence(Map<?, ?> entry, LogDecision decision) throws Exception {
        String name = (String) entry.get("name");
        Checkpoint kept = Checkpoint.parse(decision.kept().text());
        Checkpoint refused = Checkpoint.parse(decision.refused().text());
        Checkpoint small = kept.size() <= refused.size() ? kept : refused;
        Checkpoint large = small == kept ? refused : kept;
        List<String> expected = new ArrayList<>();
        if (small.size() == large.size()) {
            assertTrue(decision.proof().isEmpty(), name);
        } else {
            File tiles = new File(ROOT, (String) entry.get("tiles"));
            TileReader reader = new TileReader(large.size(), tile -> servedTile(tiles, tile));
            List<byte[]> proof = reader.consistencyProof(small.size(), large.size());
            assertEquals(proof.size(), decision.proof().size(), name);
            assertTrue(proof.size() > 0, name);
            for (int i = 0; i < proof.size(); i++) {
                assertArrayEquals(proof.get(i), decision.proof().get(i), name + " hash " + i);
                expected.add(Base64Codec.encodeStandard(proof.get(i)));
            }
            assertTrue(MerkleHasher.verifyConsistency(small.size(), large.size(), reader.rootHash(small.size()),
                    large.rootHash(), decision.proof()), name + ": the proof leads from the tiles' root");
            assertFalse(MerkleHasher.verifyConsistency(small.size(), large.size(), small.rootHash(), large.rootHash(),
                    decision.proof()), name + ": the proof fails from the smaller checkpoint's root");
        }
        Map<String, Object> report = Json.parseObject(PinFailureReporter.logForkJson("/pins/api.example.com", decision));
        assertEquals(expected, report.get("proof"), name);
    }

    /** The decision for one case: a proof that does not parse is refused as the updater refuses it. */
    static LogDecision decide(Map<?, ?> entry, LogProofVerifier verifier) throws Exception {
        LogProof proof;
        try {
            proof = LogProof.parse(read((String) entry.get("proof")));
        } catch (LogError e) {
            return LogDecision.refused(e);
        }
        VerifiedCheckpoint largest = null;
        TileReader reader = null;
        if (entry.get("largest") != null) {
            largest = verifier.verifyCheckpoint(SignedNote.parse(read((String) entry.get("largest"))));
            long a = largest.checkpoint().size();
            long b = Checkpoint.parse(proof.checkpoint().text()).size();
            File tiles = new File(ROOT, (String) entry.get("tiles"));
            reader = new TileReader(Math.max(a, b), tile -> servedTile(tiles, tile));
        }
        return verifier.decide(read((String) entry.get("document")), proof, largest, reader);
    }

    /**
     * Trust documents with {@code logKeys} (PROTOCOL §7.1), checked like {@code signingKeys}: the same rule as the
     * Swift TrustRules, in ../manifest.json's trustWalk shape, expecting the number of log keys too.
     */
    @TestFactory
    Stream<DynamicTest> everyTrustCaseWithLogKeys() throws Exception {
        Map<String, Object> shared = Json.parseObject(read("manifest.json"));
        long now = Rfc3339.parse((String) shared.get("now"));
        Map<?, ?> keys = (Map<?, ?>) shared.get("keys");
        List<DynamicTest> tests = new ArrayList<>();
        for (Object value : (List<?>) Json.parseObject(read("log/manifest.json")).get("trustCases")) {
            Map<?, ?> entry = (Map<?, ?>) value;
            tests.add(DynamicTest.dynamicTest((String) entry.get("name"), () -> {
                Map<?, ?> expect = (Map<?, ?>) entry.get("expect");
                VectorTest.ED25519 = new JdkEd25519Verifier();
                assertEquals(VectorTest.expected(expect, entry), VectorTest.trustWalk(entry, keys, now));
                if (expect.containsKey("logKeys")) {
                    TrustState shipped = TrustState.ofRootKeys(VectorTest.keys(entry.get("rootKeys"), keys), 1);
                    List<byte[]> documents = new ArrayList<>();
                    for (Object path : (List<?>) entry.get("documents")) documents.add(read((String) path));
                    TrustState state = TrustRules.walk(documents, shipped, now, 300_000, new JdkEd25519Verifier(), 10);
                    assertEquals(((Long) expect.get("logKeys")).intValue(), state.logKeys().size());
                }
            }));
        }
        assertTrue(tests.size() >= 10);
        return tests.stream();
    }

    /** A tile as a log folder serves it: the partial tile, or the first hashes of the full one once it is gone. */
    static byte[] servedTile(File folder, Tile tile) throws IOException {
        File exact = new File(folder, tile.path());
        if (exact.isFile()) return Files.readAllBytes(exact.toPath());
        byte[] full = Files.readAllBytes(new File(folder, new Tile(tile.level(), tile.index(), Tile.FULL_WIDTH).path()).toPath());
        return Arrays.copyOf(full, tile.width() * 32);
    }

    static byte[] read(String path) throws IOException {
        return Files.readAllBytes(new File(ROOT, path).toPath());
    }

    // Go's golang.org/x/mod/sumdb/tlog and note, over the entries "entry-0" … "entry-999".

    static String goVectors() throws IOException {
        return Files.readString(new File(ROOT, "../TransparencyLogTests/GoVectors.swift").toPath());
    }

    static String section(String source, String name) {
        int start = source.indexOf("static let " + name);
        int end = source.indexOf("static let", start + 1);
        return source.substring(start, end < 0 ? source.length() : end);
    }

    static List<byte[]> hashes(String list) {
        List<byte[]> result = new ArrayList<>();
        Matcher matcher = Pattern.compile("\"([A-Za-z0-9+/=]{44})\"").matcher(list);
        while (matcher.find()) result.add(Base64Codec.decodeStandard(matcher.group(1)));
        return result;
    }

    /** The tiles of the Go tree, computed here from its leaves (every level of every tile, partial ones included). */
    static TileReader goTree(long size) {
        List<List<byte[]>> levels = new ArrayList<>();
        List<byte[]> level = new ArrayList<>();
        for (int i = 0; i < size; i++) level.add(MerkleHasher.leafHash(("entry-" + i).getBytes(StandardCharsets.UTF_8)));
        while (!level.isEmpty()) {
            levels.add(level);
            List<byte[]> up = new ArrayList<>();
            for (int i = 0; i + Tile.FULL_WIDTH <= level.size(); i += Tile.FULL_WIDTH) {
                up.add(MerkleHasher.perfectRoot(level.subList(i, i + Tile.FULL_WIDTH)));
            }
            level = up;
        }
        return new TileReader(size, tile -> {
            List<byte[]> hashes = levels.get(tile.level());
            int from = (int) tile.index() * Tile.FULL_WIDTH;
            byte[] data = new byte[tile.width() * 32];
            for (int i = 0; i < tile.width(); i++) System.arraycopy(hashes.get(from + i), 0, data, i * 32, 32);
            return data;
        });
    }

    @Test
    void goRootsInclusionAndConsistencyProofsAgree() throws Exception {
        String source = goVectors();
        TileReader tree = goTree(1000);
        Matcher roots = Pattern.compile("\\((\\d+), \"([A-Za-z0-9+/=]{44})\"\\)").matcher(section(source, "roots"));
        int count = 0;
        while (roots.find()) {
            assertArrayEquals(Base64Codec.decodeStandard(roots.group(2)), tree.rootHash(Long.parseLong(roots.group(1))));
            count++;
        }
        assertEquals(12, count);
        Pattern tuple = Pattern.compile("\\(\\s*(\\d+), (\\d+),\\s*\\[(.*?)\\]\\s*\\)", Pattern.DOTALL);
        Matcher inclusion = tuple.matcher(section(source, "inclusion"));
        count = 0;
        while (inclusion.find()) {
            long index = Long.parseLong(inclusion.group(1));
            long size = Long.parseLong(inclusion.group(2));
            List<byte[]> proof = hashes(inclusion.group(3));
            byte[] leaf = MerkleHasher.leafHash(("entry-" + index).getBytes(StandardCharsets.UTF_8));
            assertTrue(MerkleHasher.verifyInclusion(leaf, index, size, proof, tree.rootHash(size)), index + "/" + size);
            assertFalse(MerkleHasher.verifyInclusion(leaf, index ^ 1, size, proof, tree.rootHash(size)));
            count++;
        }
        assertEquals(6, count);
        Matcher consistency = tuple.matcher(section(source, "consistency"));
        count = 0;
        while (consistency.find()) {
            long old = Long.parseLong(consistency.group(1));
            long size = Long.parseLong(consistency.group(2));
            List<byte[]> proof = hashes(consistency.group(3));
            List<byte[]> ours = tree.consistencyProof(old, size);
            assertEquals(proof.size(), ours.size(), old + "→" + size);
            for (int i = 0; i < proof.size(); i++) assertArrayEquals(proof.get(i), ours.get(i), old + "→" + size);
            assertTrue(MerkleHasher.verifyConsistency(old, size, tree.rootHash(old), tree.rootHash(size), proof));
            assertFalse(MerkleHasher.verifyConsistency(old, size, tree.rootHash(old - 1), tree.rootHash(size), proof));
            count++;
        }
        assertEquals(7, count);
    }

    @Test
    void goTilesAndSignedCheckpointAgree() throws Exception {
        String source = goVectors();
        TileReader tree = goTree(1000);
        Matcher tiles = Pattern.compile("\\(\"tile/(\\d+)/(\\d+)(?:\\.p/(\\d+))?\", \"([0-9a-f]{64})\"\\)").matcher(section(source, "tiles"));
        int count = 0;
        while (tiles.find()) {
            int level = Integer.parseInt(tiles.group(1));
            long index = Long.parseLong(tiles.group(2));
            Tile tile = Tile.containing(level, index * Tile.FULL_WIDTH, 1000);
            assertEquals(tiles.group(0).substring(2, tiles.group(0).indexOf('"', 2)), tile.path());
            byte[] data = new byte[tile.width() * 32];
            for (int i = 0; i < tile.width(); i++) {
                System.arraycopy(tree.subtreeHash(level * Tile.HEIGHT, index * Tile.FULL_WIDTH + i), 0, data, i * 32, 32);
            }
            assertEquals(tiles.group(4), hex(Sha256.hash(data)), tile.path());
            count++;
        }
        assertEquals(5, count);
        Matcher vkey = Pattern.compile("static let vkey = \"([^\"]+)\"").matcher(source);
        Matcher signed = Pattern.compile("\"([A-Za-z0-9+/=]{100,})\"").matcher(section(source, "signedCheckpoint"));
        assertTrue(vkey.find() && signed.find());
        VerifierKey key = VerifierKey.parse(vkey.group(1));
        assertEquals(vkey.group(1), key.toString());
        SignedNote note = SignedNote.parse(Base64Codec.decodeStandard(signed.group(1)));
        assertEquals(1, note.verify(List.of(key), new JdkEd25519Verifier()).size());
        Checkpoint checkpoint = Checkpoint.parse(note.text());
        assertEquals(1000, checkpoint.size());
        assertArrayEquals(tree.rootHash(1000), checkpoint.rootHash());
    }

    static String hex(byte[] bytes) {
        StringBuilder text = new StringBuilder();
        for (byte b : bytes) text.append(String.format("%02x", b & 0xFF));
        return text.toString();
    }

    // The C2SP specifications' examples.

    static final String SOFA = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

    @Test
    void theSignedNoteExampleVerifies() throws Exception {
        VerifierKey key = VerifierKey.parse("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k");
        assertEquals(0x530d903a, key.keyId());
        String text = "This is an example message.\n\n\u2014 example.com/foo "
                + "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
        SignedNote note = SignedNote.parse(text.getBytes(StandardCharsets.UTF_8));
        assertArrayEquals("This is an example message.\n".getBytes(StandardCharsets.UTF_8), note.text());
        for (Ed25519Verifier ed25519 : List.of(new JdkEd25519Verifier(), new BouncyCastleEd25519Verifier())) {
            assertEquals(1, note.verify(List.of(key), ed25519).size());
            SignedNote forged = SignedNote.parse(text.replace("example message", "exemple message").getBytes(StandardCharsets.UTF_8));
            LogError error = assertThrows(LogError.class, () -> forged.verify(List.of(key), ed25519));
            assertEquals(LogError.Code.BAD_SIGNATURE, error.code());
        }
        for (String bad : List.of("no blank line\n\u2014 a AAAAAAAA\n", "text\n\n", "text\n\n- a AAAAAAAA\n",
                "text\n\n\u2014 a AAAA\n", "text\n\n\u2014 a+b AAAAAAAA\n", "text\n\n\u2014 a AAAAAAAA",
                "te\u0007xt\n\n\u2014 a AAAAAAAA\n", "text\n\n\u2014 a AAAAAA==AA\n")) {
            assertThrows(LogError.class, () -> SignedNote.parse(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
        for (String bad : List.of("example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
                "example.com/foo+530D903A+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
                "example.com/foo+530d903a+AukyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k", "example.com/foo+530d903a")) {
            assertThrows(LogError.class, () -> VerifierKey.parse(bad), bad);
        }
    }

    @Test
    void theCheckpointCosignatureAndProofExamplesParse() throws Exception {
        String note = SOFA + "\n\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
                + "\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n";
        SignedNote parsed = SignedNote.parse(note.getBytes(StandardCharsets.UTF_8));
        Checkpoint checkpoint = Checkpoint.parse(parsed.text());
        assertEquals("example.com/behind-the-sofa", checkpoint.origin());
        assertEquals(20_852_163, checkpoint.size());
        byte[] cosignature = parsed.signatures().get(1).signature();
        assertEquals(72, cosignature.length);
        long timestamp = 0;
        for (int i = 0; i < 8; i++) timestamp = timestamp << 8 | (cosignature[i] & 0xFF);
        assertEquals(1_679_315_147L, timestamp);
        assertArrayEquals(("cosignature/v1\ntime 1679315147\n" + SOFA).getBytes(StandardCharsets.UTF_8),
                VerifierKey.cosignedMessage(timestamp, parsed.text()));
        for (String bad : List.of("o\n01\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", "o\n1\nAAAA\n",
                "\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", "o\n1\n",
                "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n")) {
            assertThrows(LogError.class, () -> Checkpoint.parse(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
        String proof = "c2sp.org/tlog-proof@v1\nextra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ\nindex 73894\n"
                + "gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=\nB95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=\n"
                + "EKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=\nRoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=\n"
                + "AHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=\n\n" + note;
        LogProof parsedProof = LogProof.parse(proof.getBytes(StandardCharsets.UTF_8));
        assertEquals(73894, parsedProof.index());
        assertEquals("age-v1.2.1-", new String(Arrays.copyOf(parsedProof.extra(), 11), StandardCharsets.UTF_8));
        assertEquals(5, parsedProof.inclusionProof().size());
        for (String bad : List.of("c2sp.org/tlog-proof@v2\nindex 1\n\n", "c2sp.org/tlog-proof@v1\nindex 01\n\n",
                "c2sp.org/tlog-proof@v1\n\n")) {
            assertThrows(LogError.class, () -> LogProof.parse((bad + note).getBytes(StandardCharsets.UTF_8)), bad);
        }
    }

    @Test
    void theTilePathsOfTheSpec() {
        assertEquals("x001/x234/067", Tile.pathIndex(1_234_067));
        assertEquals("000", Tile.pathIndex(0));
        assertEquals("x001/000", Tile.pathIndex(1000));
        assertEquals("tile/2/003.p/17", new Tile(2, 3, 17).path());
        // "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial level 0 tile of width
        // 112, one full level 1 tile, one partial level 1 tile of width 17, and one partial level 2 tile of width 1"
        assertEquals("tile/0/272", Tile.containing(0, 272 * 256, 70_000).path());
        assertEquals("tile/0/273.p/112", Tile.containing(0, 70_000 - 1, 70_000).path());
        assertEquals("tile/1/000", Tile.containing(1, 0, 70_000).path());
        assertEquals("tile/1/001.p/17", Tile.containing(1, 256, 70_000).path());
        assertEquals("tile/2/000.p/1", Tile.containing(2, 0, 70_000).path());
        assertEquals(null, Tile.containing(3, 0, 70_000));
    }

    @Test
    void thePolicyExampleOfTheSpec() throws Exception {
        VectorKeys keys = new VectorKeys();
        String text = "log " + keys.vkey("log.example", VerifierKey.ED25519) + "\n\n"
                + "witness X1 " + keys.vkey("x1", VerifierKey.COSIGNATURE) + "\n"
                + "witness X2 " + keys.vkey("x2", VerifierKey.COSIGNATURE) + "\n"
                + "witness X3 " + keys.vkey("x3", VerifierKey.COSIGNATURE) + "\n"
                + "group X-witnesses 2 X1 X2 X3\n\n"
                + "witness Y1 " + keys.vkey("y1", VerifierKey.COSIGNATURE) + "\n"
                + "witness Y2 " + keys.vkey("y2", VerifierKey.COSIGNATURE) + "\n"
                + "\twitness Y3 " + keys.vkey("y3", VerifierKey.COSIGNATURE) + " https://y3.example/   \n"
                + "group Y-witnesses any Y1 Y2 Y3\n# a comment\ngroup X-and-Y all X-witnesses Y-witnesses\nquorum X-and-Y\n";
        LogPolicy policy = LogPolicy.parse(text.getBytes(StandardCharsets.UTF_8));
        assertEquals(6, policy.witnesses().size());
        assertTrue(policy.isQuorumMet(Set.of("X1", "X3", "Y2")));
        assertFalse(policy.isQuorumMet(Set.of("X1", "X2", "X3")));
        assertFalse(policy.isQuorumMet(Set.of("X1", "Y1", "Y2", "Y3")));
        assertFalse(policy.isQuorumMet(new HashSet<>()));
        for (String bad : List.of("quorum W\n", "log x\nquorum none\n", "witness none " + keys.vkey("n", 4) + "\nquorum none\n",
                "witness A " + keys.vkey("a", 1) + "\nquorum A\n", "group G any A\nquorum G\n", "quorum none\nquorum none\n",
                "unknown x\nquorum none\n", "quorum none\r\n", "")) {
            assertThrows(LogError.class, () -> LogPolicy.parse(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
    }

    /** Verifier keys of fresh names over fixed public keys (parsing needs none to be valid on the curve). */
    static final class VectorKeys {
        int next = 1;

        String vkey(String name, int type) throws LogError {
            byte[] key = new byte[32];
            key[0] = (byte) next++;
            return VerifierKey.of(name, type, key).toString();
        }
    }
}
