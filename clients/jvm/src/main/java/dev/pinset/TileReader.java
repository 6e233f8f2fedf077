package dev.pinset;

import dev.pinset.internal.Sha256;
import dev.pinset.internal.MerkleHasher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the hashes of a tree of a given size from its C2SP tlog-tiles, fetching each tile once, and computes
 * from them what a client needs (RFC 9162 §2.1): root hashes and consistency proofs. As the Swift
 * {@code TileReader} and {@code MerkleTree}.
 */
final class TileReader {
    /** Fetches a tile's bytes (e.g. {@code GET {server}/log/} + {@link Tile#path()}). */
    public interface Fetcher {
        /** The tile's bytes, {@code 32 × width} of them. */
        byte[] fetch(Tile tile) throws IOException;
    }

    private final long treeSize;
    private final Fetcher fetcher;
    private final Map<Tile, byte[]> cache = new HashMap<>();

    /** A reader of the tree of {@code treeSize} (its partial tiles are the ones of that size). */
    public TileReader(long treeSize, Fetcher fetcher) {
        this.treeSize = treeSize;
        this.fetcher = fetcher;
    }

    /** The hash of the complete subtree of height {@code level} at {@code index} of that level. */
    public byte[] subtreeHash(int level, long index) throws LogError {
        int tileLevel = level / Tile.HEIGHT;
        int span = 1 << (level % Tile.HEIGHT);
        long first = index * span;
        Tile tile = Tile.containing(tileLevel, first + span - 1, treeSize);
        if (tile == null) {
            throw new LogError(LogError.Code.MISSING_HASH,
                    "a tree of " + treeSize + " has no complete subtree at level " + level + ", index " + index);
        }
        byte[] data = bytes(tile);
        int offset = (int) (first - tile.index() * Tile.FULL_WIDTH);
        List<byte[]> hashes = new ArrayList<>(span);
        for (int i = offset; i < offset + span; i++) hashes.add(Arrays.copyOfRange(data, i * 32, i * 32 + 32));
        return MerkleHasher.perfectRoot(hashes);
    }

    private byte[] bytes(Tile tile) throws LogError {
        byte[] cached = cache.get(tile);
        if (cached != null) return cached;
        byte[] data;
        try {
            data = fetcher.fetch(tile);
        } catch (IOException | RuntimeException e) {
            throw new LogError(LogError.Code.MISSING_HASH, tile.path() + " could not be read: " + e.getMessage());
        }
        if (data == null || data.length != tile.width() * 32) {
            throw new LogError(LogError.Code.MALFORMED, tile.path() + " is " + (data == null ? 0 : data.length)
                    + " bytes, not " + tile.width() * 32);
        }
        cache.put(tile, data);
        return data;
    }

    /** The root hash of the first {@code size} entries (at most the reader's tree size). */
    public byte[] rootHash(long size) throws LogError {
        if (size < 0 || size > treeSize) throw new LogError(LogError.Code.OUT_OF_RANGE, "no tree of " + size + " here");
        if (size == 0) return Sha256.hash(new byte[0]);
        return hash(0, size);
    }

    /** The RFC 9162 §2.1.4.1 consistency proof from {@code oldSize} to {@code newSize} (at most the tree size). */
    public List<byte[]> consistencyProof(long oldSize, long newSize) throws LogError {
        if (oldSize < 0 || oldSize > newSize || newSize > treeSize) {
            throw new LogError(LogError.Code.OUT_OF_RANGE, "no consistency proof from " + oldSize + " to " + newSize);
        }
        List<byte[]> proof = new ArrayList<>();
        if (oldSize == 0 || oldSize == newSize) return proof;
        subproof(oldSize, 0, newSize, true, proof);
        return proof;
    }

    private byte[] hash(long lo, long hi) throws LogError {
        long n = hi - lo;
        if ((n & (n - 1)) == 0 && lo % n == 0) return subtreeHash(Long.numberOfTrailingZeros(n), lo / n);
        long k = MerkleHasher.largestPowerOfTwoBelow(n);
        return MerkleHasher.nodeHash(hash(lo, lo + k), hash(lo + k, hi));
    }

    private void subproof(long m, long lo, long hi, boolean complete, List<byte[]> proof) throws LogError {
        long n = hi - lo;
        if (m == n) {
            if (!complete) proof.add(hash(lo, hi));
            return;
        }
        long k = MerkleHasher.largestPowerOfTwoBelow(n);
        if (m <= k) {
            subproof(m, lo, lo + k, complete, proof);
            proof.add(hash(lo + k, hi));
        } else {
            subproof(m - k, lo + k, hi, false, proof);
            proof.add(hash(lo, lo + k));
        }
    }
}
