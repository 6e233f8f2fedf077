package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import dev.pinset.internal.HostNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.annotation.Nullable;

/**
 * Checks a signed pin document exactly as PROTOCOL §5 lists it, steps 1–6 in order, and says precisely why one is
 * refused, with the same codes as the Swift client. Pure apart from the trust state it reads.
 */
public final class DocumentVerifier {
    /** The largest document accepted (65,535 bytes, a log entry bundle's limit; PROTOCOL §5). */
    public static final int MAX_BYTES = 65_535;

    private final Map<String, TrustedKey> trustedKeys = new HashMap<>();
    @Nullable private final TrustStore trustStore;
    private final Ed25519Verifier ed25519;
    private final long skewMillis;

    /**
     * Makes a {@link DocumentVerifier}: at least one shipped signing key ({@link #trustedKey}) or a
     * {@link #trustStore} of root keys. Every setter returns this builder; none takes {@code null}.
     */
    public static final class Builder {
        private final List<TrustedKey> trustedKeys = new ArrayList<>();
        @Nullable private TrustStore trustStore;
        private Ed25519Verifier ed25519 = new JdkEd25519Verifier();
        private long skewMillis = 300_000;

        private Builder() {}

        /** Adds a signing key shipped in the app (its public key, e.g. {@link TrustedKey#fromPem}). */
        public Builder trustedKey(TrustedKey key) {
            trustedKeys.add(Objects.requireNonNull(key, "key"));
            return this;
        }

        /** The trust state of an app that ships root keys (PROTOCOL §6). Default: none. */
        public Builder trustStore(TrustStore store) {
            this.trustStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The signature check. Default: {@link JdkEd25519Verifier} (Java 15+, Android API 33+); below Android 33 use
         * {@link BouncyCastleEd25519Verifier}.
         */
        public Builder ed25519(Ed25519Verifier verifier) {
            this.ed25519 = Objects.requireNonNull(verifier, "verifier");
            return this;
        }

        /** Clock tolerance for step 5, milliseconds, 0 or more. Default 300 000 (the Swift client's). */
        public Builder skewMillis(long millis) {
            if (millis < 0) throw new IllegalArgumentException("skewMillis must not be negative");
            this.skewMillis = millis;
            return this;
        }

        /**
         * The verifier.
         *
         * @throws IllegalStateException when it was given neither a signing key nor a trust store
         */
        public DocumentVerifier build() {
            if (trustedKeys.isEmpty() && trustStore == null) {
                throw new IllegalStateException("a DocumentVerifier needs a shipped signing key or a trust store");
            }
            return new DocumentVerifier(trustedKeys, trustStore, ed25519, skewMillis, true);
        }
    }

    /** A builder with the defaults: no key yet, the JDK's Ed25519, 300 s skew. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Creates a verifier.
     *
     * @param trustedKeys signing keys shipped in the app (may be empty when {@code trustStore} is given)
     * @param trustStore the trust state of an app that ships root keys (PROTOCOL §6), or {@code null}
     * @param ed25519 the signature check ({@link JdkEd25519Verifier} or {@link BouncyCastleEd25519Verifier})
     * @param skewMillis clock tolerance for step 5 (the Swift client's default is 300 000)
     * @deprecated positional {@code null}: use {@link #builder()}. Kept for one release.
     */
    @Deprecated
    public DocumentVerifier(
            Collection<TrustedKey> trustedKeys, @Nullable TrustStore trustStore, Ed25519Verifier ed25519, long skewMillis) {
        this(trustedKeys, trustStore, ed25519, skewMillis, true);
    }

    private DocumentVerifier(Collection<TrustedKey> trustedKeys, @Nullable TrustStore trustStore,
            Ed25519Verifier ed25519, long skewMillis, boolean unused) {
        for (TrustedKey key : trustedKeys) this.trustedKeys.putIfAbsent(key.kid(), key);
        this.trustStore = trustStore;
        this.ed25519 = ed25519;
        this.skewMillis = skewMillis;
    }

    /** The trust store, or {@code null} for an app that ships its signing keys only. */
    @Nullable
    public TrustStore trustStore() {
        return trustStore;
    }

    /** The clock tolerance, in milliseconds. */
    public long skewMillis() {
        return skewMillis;
    }

    /** The signature check in use. */
    public Ed25519Verifier ed25519() {
        return ed25519;
    }

    boolean isShipped(String kid) {
        return trustedKeys.containsKey(kid);
    }

    /**
     * Verifies {@code bytes} as the document for {@code host} at {@code nowMillis} (steps 1–6).
     *
     * @param lastAccepted the highest version already accepted for the host, or {@code null}
     */
    public VerifiedDocument verify(byte[] bytes, String host, long nowMillis, @Nullable AcceptedVersion lastAccepted)
            throws DocumentRejection {
        return verify(bytes, host, Long.valueOf(nowMillis), lastAccepted);
    }

    /** {@link #verify} without step 5: for documents persisted or bundled, accepted once or shipped. */
    public VerifiedDocument verifyIgnoringTime(byte[] bytes, String host, @Nullable AcceptedVersion lastAccepted)
            throws DocumentRejection {
        return verify(bytes, host, null, lastAccepted);
    }

    private VerifiedDocument verify(byte[] bytes, String rawHost, Long now, AcceptedVersion lastAccepted)
            throws DocumentRejection {
        // 1. size, JSON, the three JWS members.
        if (bytes.length > MAX_BYTES) {
            throw new DocumentRejection(DocumentRejection.Code.TOO_LARGE,
                    "the document is " + bytes.length + " bytes; at most " + MAX_BYTES + " are accepted");
        }
        Map<String, Object> document;
        try {
            document = Json.parseObject(bytes);
        } catch (Json.ParseException e) {
            document = null;
        }
        if (document == null || !(document.get("protected") instanceof String)
                || !(document.get("payload") instanceof String) || !(document.get("signature") instanceof String)) {
            throw new DocumentRejection(DocumentRejection.Code.MALFORMED_JSON,
                    "the body is not a JSON object with string members protected, payload and signature");
        }
        String protectedHeader = (String) document.get("protected");
        String payload = (String) document.get("payload");
        String signature = (String) document.get("signature");
        Map<String, Object> header = header(protectedHeader);
        if (header == null) {
            throw new DocumentRejection(DocumentRejection.Code.MALFORMED_JSON,
                    "the protected header is not base64url of a JSON object with an alg member");
        }
        byte[] payloadBytes = Base64Codec.decodeUrl(payload);
        if (payloadBytes == null) {
            throw new DocumentRejection(DocumentRejection.Code.MALFORMED_JSON, "the payload is not base64url");
        }

        // 2. alg, typ, kid.
        String alg = (String) header.get("alg");
        if (!alg.equals("EdDSA") && !alg.equals("Ed25519")) {
            throw new DocumentRejection(DocumentRejection.Code.UNSUPPORTED_ALGORITHM, "alg is \"" + PinSet.clip(alg, 40)
                    + "\"; only \"EdDSA\" (or \"Ed25519\", RFC 9864) is accepted");
        }
        Object typ = header.get("typ");
        if (!"pinset+jws".equals(typ)) {
            throw new DocumentRejection(DocumentRejection.Code.WRONG_TYPE, "typ is "
                    + (typ == null ? "missing" : "\"" + PinSet.clip((String) typ, 40) + "\"")
                    + "; it must be \"pinset+jws\"");
        }
        String kid = (String) header.get("kid");
        TrustState delegation = trustStore == null ? null : trustStore.current();
        TrustedKey key = kid == null ? null : trustedKeys.get(kid);
        if (key == null && kid != null && delegation != null) key = delegation.signingKeys().get(kid);
        if (key == null) {
            throw new DocumentRejection(DocumentRejection.Code.UNKNOWN_KEY, "kid "
                    + (kid == null ? "(missing)" : "\"" + PinSet.clip(kid, 60) + "\"") + " names no trusted key");
        }
        if (!trustedKeys.containsKey(kid) && now != null && delegation != null
                && delegation.isExpired(now, skewMillis)) {
            throw new DocumentRejection(DocumentRejection.Code.TRUST_EXPIRED, "trust version " + delegation.version()
                    + " expired at " + Rfc3339.format(delegation.expiresAt())
                    + "; no new document signed by a delegated key is accepted until a newer trust document is fetched");
        }

        // 3. signature over protected + "." + payload, as sent.
        byte[] signatureBytes = Base64Codec.decodeUrl(signature);
        byte[] input = (protectedHeader + "." + payload).getBytes(StandardCharsets.UTF_8);
        if (signatureBytes == null || signatureBytes.length != 64 || !key.verify(ed25519, input, signatureBytes)) {
            throw new DocumentRejection(DocumentRejection.Code.BAD_SIGNATURE,
                    "the Ed25519 signature does not verify with key " + kid);
        }
        PinSet set;
        try {
            set = PinSet.decode(payloadBytes);
        } catch (PinSet.FormatException e) {
            throw new DocumentRejection(DocumentRejection.Code.MALFORMED_JSON,
                    "the signed payload is not a valid pin set: " + e.getMessage());
        }

        // 4. host.
        String host = HostNames.normalizeLenient(rawHost);
        if (!set.host().equals(host)) {
            throw new DocumentRejection(DocumentRejection.Code.HOST_MISMATCH,
                    "the document is for \"" + set.host() + "\", not \"" + host + "\"");
        }

        // 5. issuedAt - skew <= now < expiresAt + skew.
        if (now != null) {
            if (set.issuedAt() - skewMillis > now) {
                throw new DocumentRejection(DocumentRejection.Code.NOT_YET_VALID, "issuedAt "
                        + Rfc3339.format(set.issuedAt()) + " is in the future (now " + Rfc3339.format(now) + ")");
            }
            if (now >= set.expiresAt() + skewMillis) {
                throw new DocumentRejection(DocumentRejection.Code.EXPIRED, "the document expired at "
                        + Rfc3339.format(set.expiresAt()) + " (now " + Rfc3339.format(now) + ")");
            }
        }

        // 6. no rollback.
        if (lastAccepted != null) {
            if (set.version() < lastAccepted.version()) {
                throw new DocumentRejection(DocumentRejection.Code.ROLLBACK, "version " + set.version()
                        + " is older than version " + lastAccepted.version() + " already accepted");
            }
            if (set.version() == lastAccepted.version() && set.issuedAt() < lastAccepted.issuedAt()) {
                throw new DocumentRejection(DocumentRejection.Code.ROLLBACK, "version " + set.version()
                        + " issued at " + Rfc3339.format(set.issuedAt()) + " is older than the one already accepted");
            }
        }
        return new VerifiedDocument(set, bytes.clone(), kid);
    }

    /** The decoded header when it is an object with a string {@code alg} and string-or-absent kid and typ. */
    private static Map<String, Object> header(String protectedHeader) {
        byte[] bytes = Base64Codec.decodeUrl(protectedHeader);
        if (bytes == null) return null;
        try {
            Map<String, Object> header = Json.parseObject(bytes);
            if (!(header.get("alg") instanceof String)) return null;
            for (String member : new String[] {"kid", "typ"}) {
                Object value = header.get(member);
                if (value == Json.NULL) header.remove(member);
                else if (value != null && !(value instanceof String)) return null;
            }
            return header;
        } catch (Json.ParseException e) {
            return null;
        }
    }
}
