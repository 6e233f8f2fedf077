package dev.pinset;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The trust state in force, shared by the {@link DocumentVerifier} that reads it on every document and the
 * {@link PinSetUpdater} that advances it. Thread-safe; a state is replaced atomically and never goes backwards.
 */
public final class TrustStore {
    private final TrustState shipped;
    private final AtomicReference<TrustState> current;

    /** Creates a store holding the state the app ships. */
    public TrustStore(TrustState shipped) {
        this.shipped = shipped;
        this.current = new AtomicReference<>(shipped);
    }

    /** The state the app shipped. */
    public TrustState shipped() {
        return shipped;
    }

    /** The state in force. */
    public TrustState current() {
        return current.get();
    }

    /**
     * Replaces the state in force with {@code newer} if its version is higher.
     *
     * @return the state it replaced, or {@code null} when nothing changed
     */
    public TrustState advance(TrustState newer) {
        while (true) {
            TrustState now = current.get();
            if (newer.version() <= now.version()) return null;
            if (current.compareAndSet(now, newer)) return now;
        }
    }
}
