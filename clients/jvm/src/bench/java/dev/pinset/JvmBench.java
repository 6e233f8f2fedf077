package dev.pinset;

import dev.pinset.internal.MerkleHasher;
import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Rfc3339;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * B8, B9 (issue 23) and B12 (issue 24) on the JVM, with the shapes of Sources/PinSetBench: verifying one document
 * (4 pins) against one raw JDK Ed25519 verify of the same signing input; one warm evaluation of a 3-certificate chain
 * whose root matches the last of 4 pins against one SHA-256 of the leaf's SPKI; and a document's C2SP tlog-proof
 * (parse, inclusion at index 77,777 of 100,000, the log's signature, two cosignatures, the quorum of a 2-of-2
 * policy) against the same raw verify. Interleaved rounds, medians; prints markdown rows.
 * Usage: java -cp ... dev.pinset.JvmBench VECTORS_DIR [rounds]
 */
public final class JvmBench {
    private JvmBench() {}

    public static void main(String[] args) throws Exception {
        File vectors = new File(args.length > 0 ? args[0] : "Tests/Vectors");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        long now = Rfc3339.parse("2026-06-01T00:00:00Z");

        List<byte[]> chain = new ArrayList<>();
        for (String name : new String[] {"leaf-b.der", "leaf-a.der", "ca.der"}) {
            chain.add(Files.readAllBytes(new File(vectors, "certs/" + name).toPath()));
        }
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        byte[] raw = Arrays.copyOfRange(pair.getPublic().getEncoded(), 12, 44);
        TrustedKey key = TrustedKey.fromRaw(raw);
        String[] pins = {random(), random(), random(), SpkiPin.ofCertificate(chain.get(2))};
        String[] roles = {"current", "backup", "future", "backup"};
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            if (i > 0) list.append(',');
            list.append("{\"role\":\"").append(roles[i]).append("\",\"sha256\":\"").append(pins[i]).append("\",\"type\":\"spki\"}");
        }
        String payload = Base64Codec.encodeUrl(("{\"enforce\":true,\"expiresAt\":\"2026-06-02T00:00:00Z\",\"host\":\"example.com\","
                + "\"includeSubdomains\":false,\"issuedAt\":\"2026-05-31T23:59:00Z\",\"pins\":[" + list
                + "],\"version\":7}").getBytes(StandardCharsets.UTF_8));
        String header = Base64Codec.encodeUrl(("{\"alg\":\"EdDSA\",\"kid\":\"" + key.kid() + "\",\"typ\":\"pinset+jws\"}")
                .getBytes(StandardCharsets.UTF_8));
        byte[] input = (header + "." + payload).getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance("Ed25519");
        signer.initSign(pair.getPrivate());
        signer.update(input);
        byte[] signature = signer.sign();
        byte[] document = ("{\"protected\":\"" + header + "\",\"payload\":\"" + payload + "\",\"signature\":\""
                + Base64Codec.encodeUrl(signature) + "\"}").getBytes(StandardCharsets.UTF_8);

        JdkEd25519Verifier ed25519 = new JdkEd25519Verifier();
        DocumentVerifier verifier = new DocumentVerifier(List.of(key), null, ed25519, 300_000);
        PinSetStore store = new PinSetStore(verifier, new PinningOptions());
        store.accept(document, "example.com", now);
        if (!store.evaluate(chain, "example.com", now).allowsConnection()) throw new AssertionError("chain not trusted");
        byte[] leafSpki = SpkiPin.spkiDer(chain.get(0));

        // The baseline: a raw JDK verify with the platform key decoded once, as a tuned app would hold it.
        java.security.PublicKey platformKey = pair.getPublic();
        IntSupplier rawVerify = () -> {
            try {
                Signature check = Signature.getInstance("Ed25519");
                check.initVerify(platformKey);
                check.update(input);
                return check.verify(signature) ? 1 : 0;
            } catch (java.security.GeneralSecurityException e) {
                throw new AssertionError(e);
            }
        };
        double[] b8 = measure(rounds, 400, () -> {
            try {
                return (int) verifier.verify(document, "example.com", now, null).pinSet().version();
            } catch (DocumentRejection e) {
                throw new AssertionError(e);
            }
        }, rawVerify);
        double[] b9 = measure(rounds, 200_000, () -> store.evaluate(chain, "example.com", now).allowsConnection() ? 1 : 0,
                () -> {
                    try {
                        return MessageDigest.getInstance("SHA-256").digest(leafSpki)[0];
                    } catch (java.security.NoSuchAlgorithmException e) {
                        throw new AssertionError(e);
                    }
                });
        // B12j: the document's tlog-proof, as B12.
        StringBuilder policy = new StringBuilder();
        byte[] proofBytes = loggedDocument(document, 77_777, 100_000, policy);
        LogProofVerifier logVerifier = new LogProofVerifier(
                LogPolicy.parse(policy.toString().getBytes(StandardCharsets.UTF_8)), ed25519);
        logVerifier.verify(document, LogProof.parse(proofBytes));
        double[] b12 = measure(rounds, 200, () -> {
            try {
                return (int) logVerifier.verify(document, LogProof.parse(proofBytes)).checkpoint().size();
            } catch (LogError e) {
                throw new AssertionError(e);
            }
        }, rawVerify);
        System.out.println("<!-- JvmBench (" + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + "), " + rounds + " interleaved rounds; per-op times are medians -->");
        System.out.println("| Bench | What | Client | Baseline | Ratio median (min–max) | Goal | Result |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        System.out.println(row("B8j", "JVM: verify one document (DocumentVerifier) vs one raw JDK Ed25519 verify", b8, 1.5));
        System.out.println(row("B12j", "JVM: a document's tlog-proof: inclusion, log signature, 2 cosignatures, vs one raw JDK"
                + " Ed25519 verify", b12, 4.0));
        System.out.println(row("B9j", "JVM: warm evaluation, 3-cert chain vs 4 pins, vs one SHA-256 of the leaf SPKI", b9, 1.0));
    }

    /**
     * B12's inputs: {@code document} as entry {@code index} of a log of {@code size} other entries, its C2SP
     * tlog-proof (as bytes) signed by a log key and cosigned by two witnesses, and a 2-of-2 policy for them (appended
     * to {@code policy}).
     */
    private static byte[] loggedDocument(byte[] document, int index, int size, StringBuilder policy) throws Exception {
        List<byte[]> leaves = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            leaves.add(MerkleHasher.leafHash(i == index ? document : ("entry " + i).getBytes(StandardCharsets.UTF_8)));
        }
        List<byte[]> path = new ArrayList<>();
        byte[] root = inclusion(leaves, index, 0, size, path);
        byte[] text = ("pins.example.com/log\n" + size + "\n" + Base64Codec.encodeStandard(root) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        StringBuilder proof = new StringBuilder(LogProof.HEADER + "\nindex " + index + "\n");
        for (byte[] hash : path) proof.append(Base64Codec.encodeStandard(hash)).append('\n');
        proof.append('\n').append(new String(text, StandardCharsets.UTF_8)).append('\n');
        String[] names = {"pins.example.com/log", "w1.example", "w2.example"};
        for (int i = 0; i < 3; i++) {
            KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            int type = i == 0 ? VerifierKey.ED25519 : VerifierKey.COSIGNATURE;
            VerifierKey key = VerifierKey.of(names[i], type, Arrays.copyOfRange(pair.getPublic().getEncoded(), 12, 44));
            policy.append(i == 0 ? "log " : "witness w" + i + " ").append(key).append('\n');
            long time = 1_780_000_000L;
            Signature signer = Signature.getInstance("Ed25519");
            signer.initSign(pair.getPrivate());
            signer.update(i == 0 ? text : VerifierKey.cosignedMessage(time, text));
            byte[] signed = signer.sign();
            byte[] line = new byte[4 + (i == 0 ? 0 : 8) + 64];
            for (int b = 0; b < 4; b++) line[b] = (byte) (key.keyId() >>> (24 - 8 * b));
            if (i > 0) for (int b = 0; b < 8; b++) line[4 + b] = (byte) (time >>> (56 - 8 * b));
            System.arraycopy(signed, 0, line, line.length - 64, 64);
            proof.append("\u2014 ").append(names[i]).append(' ').append(Base64Codec.encodeStandard(line)).append('\n');
        }
        policy.append("group both all w1 w2\nquorum both\n");
        return proof.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The root of leaves [lo, hi), appending the RFC 9162 inclusion path of leaf {@code m} (within it) to {@code path}. */
    private static byte[] inclusion(List<byte[]> leaves, int m, int lo, int hi, List<byte[]> path) {
        if (hi - lo == 1) return leaves.get(lo);
        int k = (int) MerkleHasher.largestPowerOfTwoBelow(hi - lo);
        if (m < lo || m >= hi) {
            return MerkleHasher.nodeHash(inclusion(leaves, m, lo, lo + k, path), inclusion(leaves, m, lo + k, hi, path));
        }
        if (m < lo + k) {
            byte[] left = inclusion(leaves, m, lo, lo + k, path);
            byte[] right = inclusion(leaves, -1, lo + k, hi, path);
            path.add(right);
            return MerkleHasher.nodeHash(left, right);
        }
        byte[] right = inclusion(leaves, m, lo + k, hi, path);
        byte[] left = inclusion(leaves, -1, lo, lo + k, path);
        path.add(left);
        return MerkleHasher.nodeHash(left, right);
    }

    private static String random() {
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        return Base64Codec.encodeStandard(bytes);
    }

    /** {candidate ns, baseline ns, median ratio, min ratio, max ratio} over interleaved rounds after 3 warm-ups. */
    private static double[] measure(int rounds, int iterations, IntSupplier candidate, IntSupplier baseline) {
        int sink = 0;
        double[] a = new double[rounds];
        double[] b = new double[rounds];
        double[] ratios = new double[rounds];
        for (int round = -3; round < rounds; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) sink += candidate.getAsInt();
            long middle = System.nanoTime();
            for (int i = 0; i < iterations; i++) sink += baseline.getAsInt();
            long end = System.nanoTime();
            if (round < 0) continue;
            a[round] = (double) (middle - start) / iterations;
            b[round] = (double) (end - middle) / iterations;
            ratios[round] = a[round] / b[round];
        }
        if (sink == 42) System.err.print(" ");
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        return new double[] {median(a), median(b), median(ratios), sorted[0], sorted[rounds - 1]};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static String row(String id, String what, double[] m, double goal) {
        return String.format("| %s | %s | %s | %s | %.2f× (%.2f–%.2f) | ≤ %.1f× | %s |", id, what, nanos(m[0]), nanos(m[1]),
                m[2], m[3], m[4], goal, m[2] <= goal ? "PASS" : "FAIL");
    }

    private static String nanos(double value) {
        return value >= 1000 ? String.format("%.2f µs", value / 1000) : String.format("%.0f ns", value);
    }
}
