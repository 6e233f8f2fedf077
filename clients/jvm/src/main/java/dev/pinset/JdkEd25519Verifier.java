package dev.pinset;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;

/** Ed25519 through the platform's JCA provider: {@code KeyFactory}/{@code Signature} "Ed25519" (Java 15+, Android 33+). */
public final class JdkEd25519Verifier implements Ed25519Verifier {
    /** Creates a verifier; nothing is loaded until the first call. */
    public JdkEd25519Verifier() {}

    @Override
    public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey == null || publicKey.length != 32 || signature == null || signature.length != 64) return false;
        try {
            PublicKey key = KeyFactory.getInstance("Ed25519")
                    .generatePublic(new X509EncodedKeySpec(TrustedKey.spkiOf(publicKey)));
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(key);
            verifier.update(message);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }
}
