package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An Ed25519 public key the app trusts to sign pin documents (PROTOCOL §5), or a root key (§6).
 *
 * <p><b>Ship trusted keys inside the app.</b> Never build one from a key fetched from the pin server ({@code GET
 * /keys} is for tooling only): a key that arrives over the network cannot vouch for documents from the same network.
 */
public final class TrustedKey {
    private static final byte[] SPKI_PREFIX = {
        0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00
    };
    private final byte[] raw;
    private final String kid;

    private TrustedKey(byte[] raw) {
        this.raw = raw.clone();
        this.kid = kidOf(raw);
    }

    /** A key from its raw 32 bytes. */
    public static TrustedKey fromRaw(byte[] raw) {
        if (raw == null || raw.length != 32) {
            throw new IllegalArgumentException("an Ed25519 public key is 32 bytes, got " + (raw == null ? 0 : raw.length));
        }
        return new TrustedKey(raw);
    }

    /** A key from a PEM {@code PUBLIC KEY} block, as {@code openssl pkey -in key.pem -pubout} writes it. */
    public static TrustedKey fromPem(String pem) {
        int begin = pem.indexOf("-----BEGIN PUBLIC KEY-----");
        int end = pem.indexOf("-----END PUBLIC KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("expected a PEM block \"-----BEGIN PUBLIC KEY-----\"");
        }
        String body = pem.substring(begin + 26, end).replaceAll("\\s", "");
        byte[] der = Base64Codec.decodeStandard(body);
        if (der == null) throw new IllegalArgumentException("the PEM body is not valid base64");
        return fromSpkiDer(der);
    }

    /** A key from a DER Ed25519 SubjectPublicKeyInfo (44 bytes). */
    public static TrustedKey fromSpkiDer(byte[] der) {
        if (der.length != 44 || !Arrays.equals(Arrays.copyOf(der, 12), SPKI_PREFIX)) {
            throw new IllegalArgumentException("the key is not an Ed25519 SubjectPublicKeyInfo (OID 1.3.101.112)");
        }
        return new TrustedKey(Arrays.copyOfRange(der, 12, 44));
    }

    /** The raw 32-byte key (a copy). */
    public byte[] raw() {
        return raw.clone();
    }

    /** The RFC 7638 JWK thumbprint (SHA-256, base64url) that documents name in their {@code kid}. */
    public String kid() {
        return kid;
    }

    boolean verify(Ed25519Verifier verifier, byte[] message, byte[] signature) {
        return verifier.verify(raw, message, signature);
    }

    /** The RFC 7638 thumbprint of a raw Ed25519 key: SHA-256 of {@code {"crv":"Ed25519","kty":"OKP","x":"…"}}. */
    public static String kidOf(byte[] raw) {
        String input = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"" + Base64Codec.encodeUrl(raw) + "\"}";
        return Base64Codec.encodeUrl(Sha256.hash(input.getBytes(StandardCharsets.US_ASCII)));
    }

    static byte[] spkiOf(byte[] raw) {
        byte[] der = Arrays.copyOf(SPKI_PREFIX, 44);
        System.arraycopy(raw, 0, der, 12, 32);
        return der;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TrustedKey && Arrays.equals(raw, ((TrustedKey) other).raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        return "TrustedKey(" + kid + ")";
    }
}
