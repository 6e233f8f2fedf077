package dev.pinset;

import dev.pinset.internal.Base64Codec;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Ed25519 through the platform's JCA provider: {@code KeyFactory}/{@code Signature} "Ed25519" (Java 15+, Android 33+). */
public final class JdkEd25519Verifier implements Ed25519Verifier {
    /** The platform key of each raw key seen (a handful: the shipped and delegated keys), so none is decoded twice. */
    private final Map<String, PublicKey> keys = new ConcurrentHashMap<>();

    /** Creates a verifier; nothing is loaded until the first call. */
    public JdkEd25519Verifier() {}

    @Override
    public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey == null || publicKey.length != 32 || signature == null || signature.length != 64) return false;
        try {
            String id = Base64Codec.encodeUrl(publicKey);
            PublicKey key = keys.get(id);
            if (key == null) {
                key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(TrustedKey.spkiOf(publicKey)));
                if (keys.size() < 64) keys.put(id, key);
            }
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(key);
            verifier.update(message);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }
}
