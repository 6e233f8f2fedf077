/**
 * The pinset client for Android and the JVM: signed pin sets fetched from a pin server (PROTOCOL §5, §6, §7.4),
 * kept fresh by {@link dev.pinset.PinSetUpdater} and enforced on every TLS handshake by
 * {@link dev.pinset.PinningTrustManager} ({@link dev.pinset.PinSetOkHttp} for OkHttp). Parameters and return values
 * are non-null unless annotated {@link javax.annotation.Nullable}; {@code dev.pinset.internal} is not API.
 */
@ParametersAreNonnullByDefault
package dev.pinset;

import javax.annotation.ParametersAreNonnullByDefault;
