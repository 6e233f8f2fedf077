package dev.pinset;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import javax.annotation.Nullable;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * An {@link X509ExtendedTrustManager} that runs the platform's standard validation first (chain and, through the
 * socket or engine, the endpoint identity when the caller asks for it), then the live pin set of a
 * {@link PinSetStore}. New sets apply to the next handshake without rebuilding this object, the
 * {@link SSLContext} or any HTTP client (OkHttp's {@code CertificatePinner} cannot do that).
 *
 * <p>A refused chain throws {@link PinningException}, whose message names the served and the pinned keys.
 */
public final class PinningTrustManager extends X509ExtendedTrustManager {
    /** Thrown when the chain passed standard validation but matched no pin of an enforcing set. */
    public static final class PinningException extends CertificateException {
        private static final long serialVersionUID = 1L;
        private final transient TrustDecision decision;

        PinningException(TrustDecision decision) {
            super(decision.toString());
            this.decision = decision;
        }

        /** The decision that refused the chain. */
        public TrustDecision decision() {
            return decision;
        }

        /**
         * The pinning refusal behind {@code error} (an HTTP client wraps it in an {@code SSLHandshakeException}), or
         * {@code null} when the connection failed for another reason.
         */
        @Nullable
        public static PinningException find(Throwable error) {
            for (Throwable cause = error; cause != null; cause = cause.getCause()) {
                if (cause instanceof PinningException) return (PinningException) cause;
            }
            return null;
        }
    }

    private final X509TrustManager platform;
    private final PinSetStore store;
    @Nullable private final DebugProxyOverride debugOverride;

    /**
     * Pins on top of {@code platform}.
     *
     * @param platform the standard trust manager (see {@link #platformDefault(KeyStore)}). An
     *     {@link X509ExtendedTrustManager} (every JDK's and Android's since API 24) also gets the socket or engine,
     *     so it can apply per-host rules (Android's Network Security Config) and endpoint identification; a plain
     *     one checks the chain only, and the HTTP client's hostname verifier checks the name.
     */
    public PinningTrustManager(X509TrustManager platform, PinSetStore store) {
        this.platform = platform;
        this.store = store;
        this.debugOverride = null;
    }

    /**
     * Pins on top of {@code platform}, except for chains issued by the proxy of an active {@link DebugProxyOverride}
     * (only ever active in a debuggable app; see there).
     */
    public PinningTrustManager(X509TrustManager platform, PinSetStore store, DebugProxyOverride debugOverride) {
        this.platform = platform;
        this.store = store;
        this.debugOverride = debugOverride;
    }

    /** The store whose sets this trust manager applies. */
    public PinSetStore store() {
        return store;
    }

    /**
     * The platform's standard trust manager over {@code roots} ({@code null}: the system trust store; on Android
     * this honours the Network Security Config).
     */
    public static X509TrustManager platformDefault(@Nullable KeyStore roots) throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(roots);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager) return (X509TrustManager) manager;
        }
        throw new GeneralSecurityException("the platform has no X509TrustManager");
    }

    /**
     * A TLS {@link SSLContext} whose only trust manager is this one. Whenever a set is swapped in, the context's
     * cached client sessions are invalidated: a resumed session skips the trust manager, so it must not outlive the
     * set it was checked against.
     */
    public SSLContext sslContext() throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {this}, new SecureRandom());
        SSLSessionContext sessions = context.getClientSessionContext();
        if (sessions == null) return context;
        // Held weakly: the listener goes away with the context instead of living as long as the store.
        store.onSetChangeWhileReachable(sessions, cached -> {
            for (Enumeration<byte[]> ids = cached.getIds(); ids.hasMoreElements(); ) {
                SSLSession session = cached.getSession(ids.nextElement());
                if (session != null) session.invalidate();
            }
        });
        return context;
    }

    /**
     * A hostname verifier that runs {@code standard} and then the pins on the session's peer chain: a backstop for
     * sessions resumed without a trust-manager call (the HTTP clients call it for every connection, resumed or not).
     * {@link PinSetOkHttp} installs it; for {@code HttpsURLConnection} pass it to {@code setHostnameVerifier}.
     */
    public HostnameVerifier hostnameVerifier(HostnameVerifier standard) {
        return (host, session) -> {
            if (!standard.verify(host, session)) return false;
            try {
                Certificate[] peer = session.getPeerCertificates();
                if (debugOverride != null && debugOverride.covers(peer, host)) return true;
                List<byte[]> der = new ArrayList<>(peer.length);
                for (Certificate certificate : peer) der.add(certificate.getEncoded());
                return store.evaluate(der, host, System.currentTimeMillis(), false).allowsConnection();
            } catch (SSLPeerUnverifiedException | CertificateEncodingException e) {
                return false;
            }
        };
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        if (platform instanceof X509ExtendedTrustManager) {
            ((X509ExtendedTrustManager) platform).checkServerTrusted(chain, authType, socket);
        } else {
            platform.checkServerTrusted(chain, authType);
        }
        pin(chain, peerHost(socket instanceof SSLSocket ? ((SSLSocket) socket).getHandshakeSession() : null));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        if (platform instanceof X509ExtendedTrustManager) {
            ((X509ExtendedTrustManager) platform).checkServerTrusted(chain, authType, engine);
        } else {
            platform.checkServerTrusted(chain, authType);
        }
        pin(chain, engine == null ? null : engine.getPeerHost());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("pinning needs the host: use this trust manager through an SSLContext");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        platform.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        platform.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        platform.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return platform.getAcceptedIssuers();
    }

    private static String peerHost(SSLSession session) {
        return session == null ? null : session.getPeerHost();
    }

    private void pin(X509Certificate[] chain, String host) throws CertificateException {
        if (host == null) throw new CertificateException("pinning needs the host name of the connection");
        if (debugOverride != null && debugOverride.covers(chain, host)) return;
        List<byte[]> der = new ArrayList<>(chain.length);
        try {
            for (X509Certificate certificate : chain) der.add(certificate.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new CertificateException("a certificate of the chain cannot be encoded", e);
        }
        TrustDecision decision = store.evaluate(der, host, System.currentTimeMillis());
        if (!decision.allowsConnection()) throw new PinningException(decision);
    }
}
