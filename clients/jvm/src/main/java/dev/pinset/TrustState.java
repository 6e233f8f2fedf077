package dev.pinset;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import javax.annotation.Nullable;

/**
 * The trust in force for a client configured with root keys (PROTOCOL §6.2): which root keys may sign the next
 * trust document, and which online keys may sign pin documents now. Immutable; later states come only from
 * {@link TrustRules}.
 */
public final class TrustState {
    private final long version;
    private final Map<String, byte[]> rootKeys;
    private final int rootThreshold;
    private final Map<String, TrustedKey> signingKeys;
    private final Map<String, TrustedKey> logKeys;
    private final Long issuedAt;
    private final Long expiresAt;
    private final byte[] document;

    TrustState(long version, Map<String, byte[]> rootKeys, int rootThreshold, Map<String, TrustedKey> signingKeys,
            Map<String, TrustedKey> logKeys, Long issuedAt, Long expiresAt, byte[] document) {
        this.version = version;
        this.rootKeys = Collections.unmodifiableMap(new TreeMap<>(rootKeys));
        this.rootThreshold = rootThreshold;
        this.signingKeys = Collections.unmodifiableMap(new TreeMap<>(signingKeys));
        this.logKeys = Collections.unmodifiableMap(new TreeMap<>(logKeys));
        this.issuedAt = issuedAt;
        this.expiresAt = expiresAt;
        this.document = document;
    }

    /**
     * Version 0: root public keys shipped in the app and how many of them must sign trust version 1.
     *
     * @throws TrustRejection {@code malformed} when the threshold is not between 1 and the number of distinct keys
     */
    public static TrustState ofRootKeys(Iterable<TrustedKey> roots, int threshold) throws TrustRejection {
        Map<String, byte[]> keys = new TreeMap<>();
        for (TrustedKey key : roots) keys.put(key.kid(), key.raw());
        if (threshold < 1 || threshold > keys.size()) {
            throw new TrustRejection(TrustRejection.Code.MALFORMED, "rootThreshold " + threshold
                    + " must be between 1 and the " + keys.size() + " distinct root key(s)");
        }
        return new TrustState(0, keys, threshold, Collections.emptyMap(), Collections.emptyMap(), null, null,
                null);
    }

    /**
     * A trust document shipped in the app, accepted without checking time: its structure is checked and its own
     * root keys must have signed it (the app binary vouches for the rest).
     */
    public static TrustState ofBundledDocument(byte[] bytes, Ed25519Verifier ed25519) throws TrustRejection {
        return TrustRules.verifySelfSigned(bytes, ed25519);
    }

    /** 0 for shipped root keys, else the version of the trust document in force. */
    public long version() {
        return version;
    }

    /** The root keys (raw bytes) that may sign the next version, by {@code kid}. */
    public Map<String, byte[]> rootKeys() {
        return rootKeys;
    }

    /** How many distinct root keys must sign the next version. */
    public int rootThreshold() {
        return rootThreshold;
    }

    /** The online keys whose pin documents are accepted while this state is in force, by {@code kid}. */
    public Map<String, TrustedKey> signingKeys() {
        return signingKeys;
    }

    /**
     * The transparency-log keys of the trust document ({@code logKeys}, PROTOCOL §7.1), by {@code kid}; empty when it
     * names none. With a tlog-policy, the updater accepts each as a further key of every log the policy names
     * ({@link LogPolicy#withLogKeys}), so a log key rotates like a signing key.
     */
    public Map<String, TrustedKey> logKeys() {
        return logKeys;
    }

    /** When the trust document was signed (epoch ms); {@code null} at version 0. */
    @Nullable
    public Long issuedAt() {
        return issuedAt;
    }

    /** When the trust document expires (epoch ms); {@code null} at version 0. */
    @Nullable
    public Long expiresAt() {
        return expiresAt;
    }

    /** The trust document exactly as received (a copy); {@code null} at version 0. */
    @Nullable
    public byte[] document() {
        return document == null ? null : document.clone();
    }

    byte[] documentBytes() {
        return document;
    }

    /** Whether freeze protection is on at {@code nowMillis}: {@code now ≥ expiresAt + skew}. Version 0 never expires. */
    public boolean isExpired(long nowMillis, long skewMillis) {
        return expiresAt != null && nowMillis >= expiresAt + skewMillis;
    }
}
