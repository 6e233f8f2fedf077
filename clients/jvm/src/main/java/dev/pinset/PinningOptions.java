package dev.pinset;

/**
 * How a {@link PinSetStore} treats hosts without pins, configured hosts without a set yet, and stale sets
 * (PROTOCOL §5). The defaults are the Swift client's: allow unpinned hosts, refuse missing sets, keep enforcing
 * stale sets, 300 s skew.
 */
public final class PinningOptions {
    /** Refuse every host no set covers (AFNetworking's behaviour); every host the app talks to then needs a set. */
    public boolean denyUnpinnedHosts = false;
    /** Let a configured host without a set yet through with standard validation only (default: refuse). */
    public boolean allowMissingSets = false;
    /** Stop pinning a host whose document expired because no fresh one could be fetched (default: keep enforcing). */
    public boolean stopPinningStaleSets = false;
    /** Clock tolerance in milliseconds for document times. Default 300 000 (five minutes). */
    public long skewMillis = 300_000;

    /** Options with every default. */
    public PinningOptions() {}
}
