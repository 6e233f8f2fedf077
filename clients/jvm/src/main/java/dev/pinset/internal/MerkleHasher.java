package dev.pinset.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RFC 6962 hashing (SHA-256, {@code 0x00} leaf prefix, {@code 0x01} node prefix) and RFC 9162 §2.1.3.2 / §2.1.4.2
 * verification of inclusion and consistency proofs, as the Swift {@code MerkleHasher}.
 */
public final class MerkleHasher {
    /** The longest proof accepted: a tree of at most 2^63 leaves. */
    public static final int MAX_PROOF_LENGTH = 63;

    private MerkleHasher() {}

    /** SHA-256 of {@code 0x00 || entry}. */
    public static byte[] leafHash(byte[] entry) {
        MessageDigest digest = sha256();
        digest.update((byte) 0);
        digest.update(entry);
        return digest.digest();
    }

    /** SHA-256 of {@code 0x01 || left || right}. */
    public static byte[] nodeHash(byte[] left, byte[] right) {
        MessageDigest digest = sha256();
        digest.update((byte) 1);
        digest.update(left);
        digest.update(right);
        return digest.digest();
    }

    /** The root of a complete subtree whose leaf-level hashes are {@code hashes} (a power of two of them). */
    public static byte[] perfectRoot(List<byte[]> hashes) {
        List<byte[]> level = new ArrayList<>(hashes);
        while (level.size() > 1) {
            List<byte[]> next = new ArrayList<>(level.size() / 2);
            for (int i = 0; i + 1 < level.size(); i += 2) next.add(nodeHash(level.get(i), level.get(i + 1)));
            level = next;
        }
        return level.get(0);
    }

    /** Whether {@code proof} shows {@code leaf} at {@code index} of the tree of {@code size} with {@code root}. */
    public static boolean verifyInclusion(byte[] leaf, long index, long size, List<byte[]> proof, byte[] root) {
        if (index < 0 || index >= size || proof.size() > MAX_PROOF_LENGTH) return false;
        long fn = index;
        long sn = size - 1;
        byte[] r = leaf;
        for (byte[] p : proof) {
            if (sn == 0) return false;
            if ((fn & 1) == 1 || fn == sn) {
                r = nodeHash(p, r);
                if ((fn & 1) == 0 && fn != 0) {
                    // Up to the first level where this node is a right child (RFC 9162: shift while even).
                    int zeros = Long.numberOfTrailingZeros(fn);
                    fn >>= zeros;
                    sn >>= zeros;
                }
            } else {
                r = nodeHash(r, p);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return sn == 0 && Arrays.equals(r, root);
    }

    /** Whether {@code proof} shows the tree of {@code oldSize} with {@code oldRoot} is a prefix of the newer one. */
    public static boolean verifyConsistency(long oldSize, long newSize, byte[] oldRoot, byte[] newRoot,
            List<byte[]> proof) {
        if (oldSize < 0 || oldSize > newSize || proof.size() > MAX_PROOF_LENGTH) return false;
        if (oldSize == newSize) return proof.isEmpty() && Arrays.equals(oldRoot, newRoot);
        if (oldSize == 0) return proof.isEmpty();
        if (proof.isEmpty()) return false;
        List<byte[]> path = new ArrayList<>(proof);
        if ((oldSize & (oldSize - 1)) == 0) path.add(0, oldRoot);
        long fn = oldSize - 1;
        long sn = newSize - 1;
        while ((fn & 1) == 1) {
            fn >>= 1;
            sn >>= 1;
        }
        byte[] fr = path.get(0);
        byte[] sr = path.get(0);
        for (byte[] c : path.subList(1, path.size())) {
            if (sn == 0) return false;
            if ((fn & 1) == 1 || fn == sn) {
                fr = nodeHash(c, fr);
                sr = nodeHash(c, sr);
                if ((fn & 1) == 0 && fn != 0) {
                    // Up to the first level where this node is a right child (RFC 9162: shift while even).
                    int zeros = Long.numberOfTrailingZeros(fn);
                    fn >>= zeros;
                    sn >>= zeros;
                }
            } else {
                sr = nodeHash(sr, c);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return Arrays.equals(fr, oldRoot) && Arrays.equals(sr, newRoot) && sn == 0;
    }

    /** The largest power of two smaller than {@code n} (n ≥ 2). */
    public static long largestPowerOfTwoBelow(long n) {
        return Long.highestOneBit(n - 1);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required on every Java platform", e);
        }
    }
}
