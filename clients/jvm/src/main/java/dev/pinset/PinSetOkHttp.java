package dev.pinset;

import java.security.GeneralSecurityException;
import javax.net.ssl.HostnameVerifier;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;

/**
 * OkHttp integration: configures a builder with a {@link PinningTrustManager} and the socket factory of its
 * context, so every connection of the client is pinned by the live sets. Works with OkHttp 3.x and 4.x (only
 * {@code sslSocketFactory(SSLSocketFactory, X509TrustManager)} is used); no reflection. Do not also set a
 * {@code CertificatePinner} for the same hosts: it cannot follow rotations. The builder's hostname verifier (OkHttp's
 * own by default) keeps running, followed by the pins, so that a resumed TLS session is checked too; the builder's
 * connection pool is emptied of idle connections whenever a set changes.
 */
public final class PinSetOkHttp {
    private PinSetOkHttp() {}

    /**
     * Installs {@code trustManager} on {@code builder} and returns the builder.
     *
     * @throws GeneralSecurityException when the platform has no TLS {@code SSLContext}
     */
    public static OkHttpClient.Builder configure(OkHttpClient.Builder builder, PinningTrustManager trustManager)
            throws GeneralSecurityException {
        OkHttpClient current = builder.build();
        HostnameVerifier standard = current.hostnameVerifier();
        // An idle pooled connection was checked against the set it opened under: drop them when a set changes, so
        // that the next request opens (and pins) a new connection. In-flight ones finish.
        ConnectionPool pool = current.connectionPool();
        // Held weakly, so that a client dropped by the app does not stay registered with the store for good.
        trustManager.store().onSetChangeWhileReachable(pool, ConnectionPool::evictAll);
        return builder.sslSocketFactory(trustManager.sslContext().getSocketFactory(), trustManager)
                .hostnameVerifier(trustManager.hostnameVerifier(standard))
                .connectionPool(pool);
    }
}
