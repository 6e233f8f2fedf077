package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;

/**
 * The rules of PROTOCOL §6.2 as pure functions over bytes, with the same steps, order and codes as the Swift
 * client's {@code TrustRules} and {@code TrustDocumentVerifier}.
 */
final class TrustRules {
    /** The largest trust document accepted (65,535 bytes, a log entry bundle's limit; PROTOCOL §6.2). */
    public static final int MAX_BYTES = 65_535;
    /** The most versions one update walks. */
    public static final int MAX_WALK_STEPS = 1000;

    private TrustRules() {}

    private static final class Signature {
        final String kid;
        final byte[] input;
        final byte[] signature;

        Signature(String kid, byte[] input, byte[] signature) {
            this.kid = kid;
            this.input = input;
            this.signature = signature;
        }
    }

    private static final class Parsed {
        final byte[] raw;
        long version;
        long issuedAt;
        long expiresAt;
        int rootThreshold;
        final List<Signature> signatures = new ArrayList<>();
        final Map<String, byte[]> rootKeys = new HashMap<>();
        final Map<String, byte[]> signingKeys = new HashMap<>();
        final Map<String, byte[]> logKeys = new HashMap<>();

        Parsed(byte[] raw) {
            this.raw = raw;
        }

        Set<String> validSigners(Map<String, byte[]> keys, Ed25519Verifier ed25519) {
            Set<String> signers = new HashSet<>();
            for (Signature entry : signatures) {
                if (signers.contains(entry.kid)) continue;
                byte[] key = keys.get(entry.kid);
                if (key != null && ed25519.verify(key, entry.input, entry.signature)) signers.add(entry.kid);
            }
            return signers;
        }

        TrustState state() {
            Map<String, TrustedKey> signing = new HashMap<>();
            for (Map.Entry<String, byte[]> entry : signingKeys.entrySet()) {
                signing.put(entry.getKey(), TrustedKey.fromRaw(entry.getValue()));
            }
            Map<String, TrustedKey> log = new HashMap<>();
            for (Map.Entry<String, byte[]> entry : logKeys.entrySet()) log.put(entry.getKey(), TrustedKey.fromRaw(entry.getValue()));
            return new TrustState(version, rootKeys, rootThreshold, signing, log, issuedAt, expiresAt, raw);
        }
    }

    /** Steps 1–4: {@code bytes} as the version following {@code state}. Time is checked by {@link #checkTime}. */
    public static TrustState verifyNext(byte[] bytes, TrustState state, Ed25519Verifier ed25519) throws TrustRejection {
        Parsed parsed = parse(bytes);
        Set<String> oldSigners = parsed.validSigners(state.rootKeys(), ed25519);
        if (oldSigners.size() < state.rootThreshold()) {
            throw new TrustRejection(TrustRejection.Code.THRESHOLD_NOT_MET, oldSigners.size()
                    + " distinct root key(s) of version " + state.version() + " signed; " + state.rootThreshold()
                    + " are required");
        }
        Set<String> newSigners = parsed.validSigners(parsed.rootKeys, ed25519);
        if (newSigners.size() < parsed.rootThreshold) {
            throw new TrustRejection(TrustRejection.Code.NEW_ROOTS_DID_NOT_SIGN, newSigners.size()
                    + " distinct key(s) of its own rootKeys signed version " + parsed.version
                    + "; its rootThreshold is " + parsed.rootThreshold + " (every new root key must co-sign)");
        }
        if (parsed.version != state.version() + 1) {
            if (parsed.version <= state.version()) {
                throw new TrustRejection(TrustRejection.Code.ROLLBACK, "version " + parsed.version
                        + " is not newer than version " + state.version() + " in force");
            }
            throw new TrustRejection(TrustRejection.Code.VERSION_NOT_NEXT, "version " + parsed.version
                    + " does not follow version " + state.version() + "; fetch /trust/" + (state.version() + 1) + " first");
        }
        return parsed.state();
    }

    /** Steps 1 and 3 only: a document shipped inside the app, which the app binary vouches for. */
    public static TrustState verifySelfSigned(byte[] bytes, Ed25519Verifier ed25519) throws TrustRejection {
        Parsed parsed = parse(bytes);
        Set<String> signers = parsed.validSigners(parsed.rootKeys, ed25519);
        if (signers.size() < parsed.rootThreshold) {
            throw new TrustRejection(TrustRejection.Code.NEW_ROOTS_DID_NOT_SIGN, signers.size()
                    + " distinct key(s) of its own rootKeys signed; its rootThreshold is " + parsed.rootThreshold);
        }
        return parsed.state();
    }

    /** Step 5 on the newest version reached; {@code null} when it passes (always for version 0). */
    @Nullable
    public static TrustRejection checkTime(TrustState state, long nowMillis, long skewMillis) {
        if (state.issuedAt() == null || state.expiresAt() == null) return null;
        if (nowMillis < state.issuedAt() - skewMillis) {
            return new TrustRejection(TrustRejection.Code.NOT_YET_VALID, "trust version " + state.version()
                    + " is issued at " + Rfc3339.format(state.issuedAt()) + ", in the future");
        }
        if (nowMillis >= state.expiresAt() + skewMillis) {
            return new TrustRejection(TrustRejection.Code.EXPIRED, "trust version " + state.version()
                    + " expired at " + Rfc3339.format(state.expiresAt()));
        }
        return null;
    }

    /**
     * Walks {@code documents} (versions N+1, N+2, … in order) from {@code state}: steps 1–4 on each, step 5 on
     * the last reached.
     */
    public static TrustState walk(List<byte[]> documents, TrustState state, long nowMillis, long skewMillis,
            Ed25519Verifier ed25519, int maxSteps) throws TrustRejection {
        if (documents.size() > maxSteps) {
            throw new TrustRejection(TrustRejection.Code.TOO_MANY_STEPS,
                    documents.size() + " versions to walk; at most " + maxSteps + " per update");
        }
        TrustState reached = state;
        for (byte[] bytes : documents) reached = verifyNext(bytes, reached, ed25519);
        if (reached.version() != state.version()) {
            TrustRejection rejection = checkTime(reached, nowMillis, skewMillis);
            if (rejection != null) throw rejection;
        }
        return reached;
    }

    /** The version a trust document claims, read without checking anything; {@code null} when unreadable. */
    @Nullable
    public static Long unverifiedVersion(byte[] bytes) {
        // As the Swift client's unverifiedPayload: the general serialization and a payload whose members have the
        // right types; no header, thumbprint or threshold check (those are the walk's, with their own codes).
        if (bytes.length > MAX_BYTES) return null;
        try {
            Map<String, Object> document = Json.parseObject(bytes);
            if (!(document.get("payload") instanceof String) || !(document.get("signatures") instanceof List)) return null;
            for (Object entry : (List<?>) document.get("signatures")) {
                if (!(entry instanceof Map) || !(((Map<?, ?>) entry).get("protected") instanceof String)
                        || !(((Map<?, ?>) entry).get("signature") instanceof String)) {
                    return null;
                }
            }
            byte[] payload = Base64Codec.decodeUrl((String) document.get("payload"));
            if (payload == null) return null;
            Map<String, Object> body = Json.parseObject(payload);
            long version = PinSet.integer(body, "version");
            PinSet.time(body, "issuedAt", true);
            PinSet.time(body, "expiresAt", true);
            PinSet.integer(body, "rootThreshold");
            jwkFields(body.get("rootKeys"), "rootKeys");
            jwkFields(body.get("signingKeys"), "signingKeys");
            if (hasLogKeys(body)) jwkFields(body.get("logKeys"), "logKeys");
            return version;
        } catch (Json.ParseException | PinSet.FormatException e) {
            return null;
        }
    }

    private static TrustRejection malformed(String detail) {
        return new TrustRejection(TrustRejection.Code.MALFORMED, detail);
    }

    /** Step 1: size, general serialization, exact signature headers, a well-formed payload. */
    private static Parsed parse(byte[] bytes) throws TrustRejection {
        if (bytes.length > MAX_BYTES) {
            throw new TrustRejection(TrustRejection.Code.TOO_LARGE,
                    "the trust document is " + bytes.length + " bytes; at most " + MAX_BYTES + " are accepted");
        }
        Map<String, Object> document;
        try {
            document = Json.parseObject(bytes);
        } catch (Json.ParseException e) {
            document = null;
        }
        Object payloadValue = document == null ? null : document.get("payload");
        Object signaturesValue = document == null ? null : document.get("signatures");
        boolean wellFormed = payloadValue instanceof String && signaturesValue instanceof List;
        if (wellFormed) {
            for (Object entry : (List<?>) signaturesValue) {
                wellFormed &= entry instanceof Map && ((Map<?, ?>) entry).get("protected") instanceof String
                        && ((Map<?, ?>) entry).get("signature") instanceof String;
            }
        }
        if (!wellFormed) {
            throw malformed("not a JWS in general JSON serialization: a string payload and an array of signatures"
                    + " with string protected and signature members");
        }
        String payload = (String) payloadValue;
        List<?> entries = (List<?>) signaturesValue;
        if (entries.isEmpty() || entries.size() > 64) throw malformed("a trust document carries between 1 and 64 signatures");
        Parsed parsed = new Parsed(bytes.clone());
        for (Object value : entries) {
            Map<?, ?> entry = (Map<?, ?>) value;
            String protectedHeader = (String) entry.get("protected");
            Map<String, Object> header = stringObject(Base64Codec.decodeUrl(protectedHeader));
            if (header == null) {
                throw new TrustRejection(TrustRejection.Code.MALFORMED_HEADER,
                        "a protected header is not base64url of a JSON object of strings");
            }
            Object alg = header.get("alg");
            if (!"EdDSA".equals(alg)) {
                throw new TrustRejection(TrustRejection.Code.UNSUPPORTED_ALGORITHM, "alg is "
                        + (alg == null ? "missing" : "\"" + PinSet.clip((String) alg, 40) + "\"")
                        + "; only \"EdDSA\" is accepted");
            }
            Object typ = header.get("typ");
            if (!"pinset-trust+jws".equals(typ)) {
                throw new TrustRejection(TrustRejection.Code.WRONG_TYPE, "typ is "
                        + (typ == null ? "missing" : "\"" + PinSet.clip((String) typ, 40) + "\"")
                        + "; it must be \"pinset-trust+jws\"");
            }
            Object kid = header.get("kid");
            if (kid == null || header.size() != 3) {
                throw new TrustRejection(TrustRejection.Code.MALFORMED_HEADER,
                        "a protected header must hold exactly alg, kid and typ");
            }
            byte[] signature = Base64Codec.decodeUrl((String) entry.get("signature"));
            if (signature == null) throw malformed("a signature is not base64url");
            byte[] input = (protectedHeader + "." + payload).getBytes(StandardCharsets.UTF_8);
            parsed.signatures.add(new Signature((String) kid, input, signature));
        }
        byte[] payloadBytes = Base64Codec.decodeUrl(payload);
        if (payloadBytes == null) throw malformed("the payload is not base64url");
        Map<String, Object> body;
        try {
            body = Json.parseObject(payloadBytes);
            parsed.version = PinSet.integer(body, "version");
            parsed.issuedAt = PinSet.time(body, "issuedAt", true);
            parsed.expiresAt = PinSet.time(body, "expiresAt", true);
            parsed.rootThreshold = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE,
                    PinSet.integer(body, "rootThreshold")));
            keys(body.get("rootKeys"), "rootKeys", parsed.rootKeys);
            keys(body.get("signingKeys"), "signingKeys", parsed.signingKeys);
            if (hasLogKeys(body)) keys(body.get("logKeys"), "logKeys", parsed.logKeys);
        } catch (Json.ParseException | PinSet.FormatException e) {
            throw malformed("the payload is not a trust payload: " + e.getMessage());
        }
        if (parsed.version < 1) throw malformed("version must be at least 1");
        if (parsed.rootThreshold < 1 || parsed.rootThreshold > parsed.rootKeys.size()) {
            throw malformed("rootThreshold " + parsed.rootThreshold + " must be between 1 and the "
                    + parsed.rootKeys.size() + " distinct root key(s)");
        }
        return parsed;
    }

    /** {@code logKeys} (PROTOCOL §7.1) is optional: absent or {@code null} names no log key, as in the Swift client. */
    private static boolean hasLogKeys(Map<String, Object> body) {
        Object value = body.get("logKeys");
        return value != null && value != Json.NULL;
    }

    /** A JSON object whose every value is a string, or {@code null}. */
    private static Map<String, Object> stringObject(byte[] bytes) {
        if (bytes == null) return null;
        try {
            Map<String, Object> map = Json.parseObject(bytes);
            for (Object value : map.values()) {
                if (!(value instanceof String)) return null;
            }
            return map;
        } catch (Json.ParseException e) {
            return null;
        }
    }

    /** A JWK list whose members have the right types (decoding comes first in the Swift client: malformed). */
    private static List<?> jwkFields(Object list, String member) throws PinSet.FormatException {
        if (!(list instanceof List)) throw new PinSet.FormatException(member + " is missing or not an array");
        for (Object jwk : (List<?>) list) {
            if (!(jwk instanceof Map)) throw new PinSet.FormatException(member + " holds a key that is not an object");
            Map<?, ?> map = (Map<?, ?>) jwk;
            PinSet.string(map, "kty", true);
            PinSet.string(map, "crv", true);
            PinSet.string(map, "x", true);
            PinSet.string(map, "kid", false);
            PinSet.string(map, "alg", false);
            PinSet.string(map, "use", false);
        }
        return (List<?>) list;
    }

    /** The keys of a JWK list by recomputed thumbprint; a {@code kid} that is not the thumbprint is refused. */
    private static void keys(Object list, String member, Map<String, byte[]> into)
            throws PinSet.FormatException, TrustRejection {
        List<?> jwks = jwkFields(list, member);
        if (jwks.size() > 256) throw malformed(member + " lists more than 256 keys");
        for (Object jwk : jwks) {
            Map<?, ?> map = (Map<?, ?>) jwk;
            byte[] raw = Base64Codec.decodeUrl((String) map.get("x"));
            if (!"OKP".equals(map.get("kty")) || !"Ed25519".equals(map.get("crv")) || raw == null || raw.length != 32) {
                throw malformed(member + " holds a key that is not an Ed25519 public JWK");
            }
            String kid = TrustedKey.kidOf(raw);
            Object given = map.get("kid");
            if (given instanceof String && !given.equals(kid)) {
                throw malformed(member + " holds a key whose kid \"" + PinSet.clip((String) given, 60)
                        + "\" is not its RFC 7638 thumbprint " + kid);
            }
            into.put(kid, raw);
        }
    }
}
