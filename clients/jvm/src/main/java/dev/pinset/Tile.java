package dev.pinset;

import java.util.Locale;

/**
 * A C2SP tlog-tiles tile: level, index and width (256 for a full tile). Its path is
 * {@code tile/<L>/<N>[.p/<W>]}, the index written in groups of three digits, all but the last prefixed {@code x}.
 */
final class Tile {
    /** Hashes in a full tile. */
    public static final int FULL_WIDTH = 256;
    /** Tree levels a tile spans. */
    public static final int HEIGHT = 8;

    private final int level;
    private final long index;
    private final int width;

    /** A tile; {@code width} 1 to 256. */
    public Tile(int level, long index, int width) {
        if (level < 0 || level > 63 || index < 0 || width < 1 || width > FULL_WIDTH) {
            throw new IllegalArgumentException("no such tile");
        }
        this.level = level;
        this.index = index;
        this.width = width;
    }

    /** The tile level. */
    public int level() {
        return level;
    }

    /** The tile index within its level. */
    public long index() {
        return index;
    }

    /** How many hashes it holds. */
    public int width() {
        return width;
    }

    /** Its path under the log's prefix, e.g. {@code tile/0/x001/234.p/7}. */
    public String path() {
        return "tile/" + level + "/" + pathIndex(index) + (width < FULL_WIDTH ? ".p/" + width : "");
    }

    /** {@code 1234067} as {@code x001/x234/067}. */
    public static String pathIndex(long n) {
        String text = String.format(Locale.ROOT, "%03d", n % 1000);
        for (long rest = n / 1000; rest > 0; rest /= 1000) {
            text = String.format(Locale.ROOT, "x%03d/", rest % 1000) + text;
        }
        return text;
    }

    /** The hashes at tile level {@code level} of a tree of {@code treeSize}. */
    static long hashCount(int level, long treeSize) {
        int shift = HEIGHT * level;
        return shift >= 63 ? 0 : treeSize >> shift;
    }

    /** The tile of a tree of {@code treeSize} holding hash {@code position} of tile level {@code level}, or {@code null}. */
    static Tile containing(int level, long position, long treeSize) {
        long count = hashCount(level, treeSize);
        if (position < 0 || position >= count) return null;
        long index = position / FULL_WIDTH;
        return new Tile(level, index, (int) Math.min(FULL_WIDTH, count - index * FULL_WIDTH));
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Tile)) return false;
        Tile tile = (Tile) other;
        return level == tile.level && index == tile.index && width == tile.width;
    }

    @Override
    public int hashCode() {
        return (int) (index * 31 + level * 7 + width);
    }

    @Override
    public String toString() {
        return path();
    }
}
