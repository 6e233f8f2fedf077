package dev.pinset;

import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * Ed25519 through BouncyCastle's lightweight API (bcprov: Debian's {@code libbcprov-java}, Maven's
 * {@code org.bouncycastle:bcprov-jdk18on}), for Android below API 33, whose platform has no Ed25519. Needs no
 * provider registration and no reflection. Only this class refers to BouncyCastle: apps that do not use it need
 * no bcprov at run time.
 */
public final class BouncyCastleEd25519Verifier implements Ed25519Verifier {
    /** Creates a verifier. */
    public BouncyCastleEd25519Verifier() {}

    @Override
    public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey == null || publicKey.length != 32 || signature == null || signature.length != 64) return false;
        try {
            Ed25519Signer signer = new Ed25519Signer();
            signer.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
            signer.update(message, 0, message.length);
            return signer.verifySignature(signature);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
