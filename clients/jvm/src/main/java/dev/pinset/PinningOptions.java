package dev.pinset;

/**
 * How a {@link PinSetStore} treats hosts without pins, configured hosts without a set yet, and stale sets
 * (PROTOCOL §5). The defaults are the Swift client's: allow unpinned hosts, refuse missing sets, keep enforcing
 * stale sets, 300 s skew. Made by {@link #builder()}; a store keeps a copy of the options it was given.
 */
public final class PinningOptions {
    /**
     * Refuse every host no set covers (AFNetworking's behaviour); every host the app talks to then needs a set.
     *
     * @deprecated mutable: use {@link Builder#denyUnpinnedHosts} and {@link #denyUnpinnedHosts()}. Kept for one release.
     */
    @Deprecated public boolean denyUnpinnedHosts = false;
    /**
     * Let a configured host without a set yet through with standard validation only (default: refuse).
     *
     * @deprecated mutable: use {@link Builder#allowMissingSets} and {@link #allowMissingSets()}. Kept for one release.
     */
    @Deprecated public boolean allowMissingSets = false;
    /**
     * Stop pinning a host whose document expired because no fresh one could be fetched (default: keep enforcing).
     *
     * @deprecated mutable: use {@link Builder#stopPinningStaleSets} and {@link #stopPinningStaleSets()}. Kept for one
     *     release.
     */
    @Deprecated public boolean stopPinningStaleSets = false;
    /**
     * Clock tolerance in milliseconds for document times. Default 300 000 (five minutes).
     *
     * @deprecated mutable: use {@link Builder#skewMillis} and {@link #skewMillis()}. Kept for one release.
     */
    @Deprecated public long skewMillis = 300_000;

    /**
     * Options with every default.
     *
     * @deprecated use {@link #builder()}{@code .build()}. Kept for one release.
     */
    @Deprecated
    public PinningOptions() {}

    /** A builder with every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether hosts no set covers are refused. Default {@code false}. */
    public boolean denyUnpinnedHosts() {
        return denyUnpinnedHosts;
    }

    /** Whether a configured host without a set yet is let through with standard validation only. Default {@code false}. */
    public boolean allowMissingSets() {
        return allowMissingSets;
    }

    /** Whether a set whose document expired stops being enforced. Default {@code false}. */
    public boolean stopPinningStaleSets() {
        return stopPinningStaleSets;
    }

    /** Clock tolerance for document times, milliseconds. Default 300 000. */
    public long skewMillis() {
        return skewMillis;
    }

    /** A copy (what a store keeps, so that a later change of these public fields changes nothing there). */
    PinningOptions copy() {
        PinningOptions copy = new PinningOptions();
        copy.denyUnpinnedHosts = denyUnpinnedHosts;
        copy.allowMissingSets = allowMissingSets;
        copy.stopPinningStaleSets = stopPinningStaleSets;
        copy.skewMillis = skewMillis;
        return copy;
    }

    /** Makes {@link PinningOptions}; every setter returns this builder. */
    public static final class Builder {
        private final PinningOptions options = new PinningOptions();

        private Builder() {}

        /** Refuse every host no set covers; every host the app talks to then needs a set. Default {@code false}. */
        public Builder denyUnpinnedHosts(boolean deny) {
            options.denyUnpinnedHosts = deny;
            return this;
        }

        /** Let a configured host without a set yet through with standard validation only. Default {@code false}. */
        public Builder allowMissingSets(boolean allow) {
            options.allowMissingSets = allow;
            return this;
        }

        /** Stop pinning a host whose document expired because no fresh one could be fetched. Default {@code false}. */
        public Builder stopPinningStaleSets(boolean stop) {
            options.stopPinningStaleSets = stop;
            return this;
        }

        /** Clock tolerance for document times, milliseconds, 0 or more. Default 300 000 (five minutes). */
        public Builder skewMillis(long millis) {
            if (millis < 0) throw new IllegalArgumentException("skewMillis must not be negative");
            options.skewMillis = millis;
            return this;
        }

        /** The options (a new object each call). */
        public PinningOptions build() {
            return options.copy();
        }
    }
}
