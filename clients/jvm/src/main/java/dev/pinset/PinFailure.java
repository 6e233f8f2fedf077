package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.Json;
import dev.pinset.internal.Rfc3339;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.annotation.Nullable;

/** What the app learns when a chain matches no pin: enough to log it, show it, or send a TrustKit report. */
public final class PinFailure {
    /** Whether a refused chain means a legitimate rotation the app was behind, or possible interception. */
    public enum Classification {
        /** A newer signed set accepts this chain; the next connection succeeds. */
        STALE_SET("staleSet"),
        /** The newest set the app could get still refuses this chain: possible interception. */
        UNEXPECTED_KEY("unexpectedKey");

        private final String wireName;

        Classification(String wireName) {
            this.wireName = wireName;
        }

        /** {@code staleSet} or {@code unexpectedKey}, as the Swift client names them. */
        public String wireName() {
            return wireName;
        }
    }

    final String host;
    final String notedHost;
    final PinSet set;
    final List<byte[]> chain;
    final List<Pin> expectedPins;
    final long date;
    final Classification classification;

    PinFailure(String host, String notedHost, PinSet set, List<byte[]> chain, List<Pin> expectedPins, long date,
            Classification classification) {
        this.host = host;
        this.notedHost = notedHost;
        this.set = set;
        this.chain = Collections.unmodifiableList(new ArrayList<>(chain));
        this.expectedPins = Collections.unmodifiableList(expectedPins);
        this.date = date;
        this.classification = classification;
    }

    PinFailure classified(Classification classification) {
        return new PinFailure(host, notedHost, set, chain, expectedPins, date, classification);
    }

    /** The host the app connected to. */
    public String host() {
        return host;
    }

    /** The pinned domain whose set applied ({@link #host()} itself or a parent with includeSubdomains). */
    public String notedHost() {
        return notedHost;
    }

    /** Whether the set blocks connections ({@code false}: report-only). */
    public boolean enforce() {
        return set.enforce();
    }

    /** The version of the document the set came from. */
    public long version() {
        return set.version();
    }

    /** The set's reportUri, or {@code null}. */
    @Nullable
    public String reportUri() {
        return set.reportUri();
    }

    /** The evaluated chain, DER, leaf first. */
    public List<byte[]> chain() {
        return chain;
    }

    /** The SPKI pins (base64) the chain served, leaf first ({@code null} for an unreadable certificate). */
    public List<String> servedPins() {
        List<String> pins = new ArrayList<>();
        for (byte[] der : chain) pins.add(SpkiPin.ofCertificate(der));
        return pins;
    }

    /** The pins of the set that were in force (not expired). */
    public List<Pin> expectedPins() {
        return expectedPins;
    }

    /** When it happened, epoch milliseconds. */
    public long date() {
        return date;
    }

    /** Set by {@link PinSetUpdater} for an enforcing set; {@code null} when not classified. */
    @Nullable
    public Classification classification() {
        return classification;
    }

    /** A one-line description naming the served and the pinned keys. */
    @Override
    public String toString() {
        List<String> pinned = new ArrayList<>();
        for (Pin pin : expectedPins) pinned.add(pin.sha256());
        return "pin failure for " + host + " (set of " + notedHost + ", version " + set.version() + "): served "
                + servedPins() + ", pinned " + pinned
                + (classification == null ? "" : ", " + classification.wireName());
    }

    /** This failure in TrustKit's report fields (PROTOCOL §3), as a JSON object for {@code POST /reports}. */
    public String reportJson(int port) {
        StringBuilder chainPem = new StringBuilder("[");
        for (int i = 0; i < chain.size(); i++) {
            if (i > 0) chainPem.append(',');
            chainPem.append(Json.quote(pem(chain.get(i))));
        }
        chainPem.append(']');
        StringBuilder known = new StringBuilder("[");
        for (int i = 0; i < expectedPins.size(); i++) {
            if (i > 0) known.append(',');
            known.append(Json.quote("pin-sha256=\"" + expectedPins.get(i).sha256() + "\""));
        }
        known.append(']');
        return "{\"date-time\":" + Json.quote(Rfc3339.format(date)) + ",\"hostname\":" + Json.quote(host)
                + ",\"port\":" + port + ",\"noted-hostname\":" + Json.quote(notedHost)
                + ",\"include-subdomains\":" + set.includeSubdomains() + ",\"enforce-pinning\":" + set.enforce()
                + ",\"validated-certificate-chain\":" + chainPem + ",\"known-pins\":" + known
                + ",\"validation-result\":1,\"app-platform\":\"JVM\""
                + (classification == null ? "" : ",\"pinset-classification\":" + Json.quote(classification.wireName()))
                + "}";
    }

    private static String pem(byte[] der) {
        String body = Base64Codec.encodeStandard(der);
        StringBuilder out = new StringBuilder("-----BEGIN CERTIFICATE-----\n");
        for (int i = 0; i < body.length(); i += 64) {
            out.append(body, i, Math.min(body.length(), i + 64)).append('\n');
        }
        return out.append("-----END CERTIFICATE-----\n").toString();
    }
}
