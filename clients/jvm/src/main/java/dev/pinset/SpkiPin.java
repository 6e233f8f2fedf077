package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Sha256;
import java.util.Arrays;
import javax.annotation.Nullable;

/**
 * Computes pins (PROTOCOL §1) from DER certificates. An SPKI pin is the SHA-256 of the whole DER
 * SubjectPublicKeyInfo, sliced from the certificate as sent (never re-encoded), as HPKP, TrustKit and OkHttp compute it.
 */
final class SpkiPin {
    private SpkiPin() {}

    /** The base64 SPKI pin of a DER certificate, or {@code null} when the bytes are not a DER X.509 certificate. */
    @Nullable
    public static String ofCertificate(byte[] der) {
        byte[] spki = spkiDer(der);
        return spki == null ? null : Base64Codec.encodeStandard(Sha256.hash(spki));
    }

    /** The base64 certificate pin (type {@code certificate}): SHA-256 of the whole DER certificate. */
    public static String ofWholeCertificate(byte[] der) {
        return Base64Codec.encodeStandard(Sha256.hash(der));
    }

    /** The exact DER of the certificate's SubjectPublicKeyInfo, or {@code null} when it cannot be read. */
    @Nullable
    public static byte[] spkiDer(byte[] der) {
        try {
            int[] certificate = header(der, 0);
            int[] tbs = header(der, certificate[0]);
            if (der[0] != 0x30 || der[certificate[0]] != 0x30) return null;
            int position = tbs[0];
            int end = tbs[0] + tbs[1];
            // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, validity, subject, spki, ...
            if ((der[position] & 0xFF) == 0xA0) position = skip(der, position);
            for (int field = 0; field < 5; field++) position = skip(der, position);
            if (position >= end || der[position] != 0x30) return null;
            int next = skip(der, position);
            if (next > end) return null;
            return Arrays.copyOfRange(der, position, next);
        } catch (RuntimeException malformed) {
            return null;
        }
    }

    /** {content offset, content length} of the element at {@code offset}. */
    private static int[] header(byte[] der, int offset) {
        int length = der[offset + 1] & 0xFF;
        int content = offset + 2;
        if (length >= 0x80) {
            int count = length & 0x7F;
            if (count == 0 || count > 3) throw new IllegalArgumentException("unsupported DER length");
            length = 0;
            for (int i = 0; i < count; i++) length = length << 8 | (der[content++] & 0xFF);
        }
        if (content + length > der.length) throw new IllegalArgumentException("DER element overruns the input");
        return new int[] {content, length};
    }

    private static int skip(byte[] der, int offset) {
        int[] element = header(der, offset);
        return element[0] + element[1];
    }
}
