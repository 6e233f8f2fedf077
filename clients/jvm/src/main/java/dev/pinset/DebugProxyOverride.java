package dev.pinset;

import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Lets a debug build talk through an intercepting proxy (mitmproxy, Charles) to pinned hosts: a chain issued by one
 * of the proxy's CA certificates skips the pins, after the platform's standard validation accepted it. The model is
 * TrustKit's {@code overridePins} and Android's {@code <debug-overrides>}.
 *
 * <p><b>It can never be on in a release build:</b> {@link #forDebuggableApp} takes whether the running app is
 * debuggable, which on Android is read from the installed APK
 * ({@code (context.getApplicationInfo().flags & ApplicationInfo.FLAG_DEBUGGABLE) != 0}); a release build is never
 * debuggable (the Android Gradle Plugin sets {@code debuggable false}, Google Play refuses debuggable APKs), so there
 * the override is {@linkplain #isActive() inactive} and every chain is pinned. Keep the call in {@code src/debug/}
 * too, so that a release build does not even compile it; the platform must also trust the proxy's CA, which
 * Android's Network Security Config {@code <debug-overrides>} does for debuggable builds only.
 */
public final class DebugProxyOverride {
    private static final Logger LOG = Logger.getLogger("dev.pinset");

    private final List<X509Certificate> proxyCertificates;

    private DebugProxyOverride(List<X509Certificate> proxyCertificates) {
        this.proxyCertificates = proxyCertificates;
    }

    /**
     * An override for the proxy's CA certificates, active only when {@code appIsDebuggable}; otherwise inactive (and
     * a {@code WARNING} is logged), so a release build that reached this call still pins every chain.
     *
     * @param appIsDebuggable on Android {@code (context.getApplicationInfo().flags & ApplicationInfo.FLAG_DEBUGGABLE)
     *     != 0}; never a constant {@code true}
     * @param proxyCertificates the proxy's CA certificates (e.g. mitmproxy's {@code mitmproxy-ca-cert.pem})
     */
    public static DebugProxyOverride forDebuggableApp(boolean appIsDebuggable,
            Collection<X509Certificate> proxyCertificates) {
        if (!appIsDebuggable) {
            LOG.warning("pinset: a debug proxy override was requested in an app that is not debuggable: ignored,"
                    + " every chain stays pinned");
            return new DebugProxyOverride(Collections.<X509Certificate>emptyList());
        }
        if (proxyCertificates.isEmpty()) throw new IllegalArgumentException("no proxy CA certificate given");
        return new DebugProxyOverride(Collections.unmodifiableList(new ArrayList<>(proxyCertificates)));
    }

    /** Whether chains issued by the proxy skip the pins (only ever in a debuggable app). */
    public boolean isActive() {
        return !proxyCertificates.isEmpty();
    }

    /** Whether {@code chain} (already validated by the platform) is one of the proxy's, for {@code host}. */
    boolean covers(Certificate[] chain, String host) {
        if (proxyCertificates.isEmpty()) return false;
        for (Certificate certificate : chain) {
            if (!(certificate instanceof X509Certificate)) continue;
            for (X509Certificate proxy : proxyCertificates) {
                if (proxy.equals(certificate) || issuedBy((X509Certificate) certificate, proxy)) {
                    LOG.warning("pinset: DEBUG BUILD: the pins of " + host + " are skipped for a chain issued by the"
                            + " proxy CA " + proxy.getSubjectX500Principal().getName());
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean issuedBy(X509Certificate certificate, X509Certificate issuer) {
        if (!certificate.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) return false;
        try {
            certificate.verify(issuer.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException notIssued) {
            return false;
        }
    }
}
