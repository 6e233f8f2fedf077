package dev.pinset;

import dev.pinset.internal.Sha256;
import dev.pinset.internal.HostNames;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import javax.annotation.Nullable;

/**
 * Holds the pin set in force for each host and evaluates TLS chains against them (PROTOCOL §5); the Java
 * counterpart of the Swift client's {@code PinTrustManager}.
 *
 * <p>Thread-safe. Sets are swapped atomically: an evaluation sees the old set or the new one, never a mix, and a
 * new set governs the next handshake without rebuilding any TLS object ({@link PinningTrustManager} reads this).
 */
public final class PinSetStore {
    private static final class Policy {
        final PinSet set;
        final VerifiedDocument document;

        Policy(PinSet set, VerifiedDocument document) {
            this.set = set;
            this.document = document;
        }

        AcceptedVersion acceptedVersion() {
            return new AcceptedVersion(set.version(), set.issuedAt());
        }
    }

    /**
     * A certificate as a cache key. The hash is the length and the last eight bytes (the tail of the issuer's
     * signature, which differs between any two certificates), so a probe costs no pass over the DER; a hit is
     * confirmed by comparing the whole DER, so a crafted collision can only cause a miss, never a wrong digest.
     */
    private static final class CertificateKey {
        final byte[] der;
        final int hash;

        CertificateKey(byte[] der) {
            this.der = der;
            int h = der.length;
            for (int i = Math.max(0, der.length - 8); i < der.length; i++) h = h * 31 + der[i];
            this.hash = h;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof CertificateKey && Arrays.equals(der, ((CertificateKey) other).der);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** SHA-256 of the SPKI ({@code null} if unreadable) and of the whole certificate. */
    private static final class Digests {
        final byte[] spki;
        final byte[] certificate;

        Digests(byte[] spki, byte[] certificate) {
            this.spki = spki;
            this.certificate = certificate;
        }
    }

    private final DocumentVerifier verifier;
    private final PinningOptions options;
    private final Map<String, Policy> policies = new ConcurrentHashMap<>();
    private final Set<String> expected = ConcurrentHashMap.newKeySet();
    private final List<Consumer<PinFailure>> observers = new CopyOnWriteArrayList<>();
    private final List<Runnable> changeListeners = new CopyOnWriteArrayList<>();
    /** Digests by certificate: at most {@link #CACHE_CAPACITY} entries, emptied when full (a new chain refills it). */
    private final Map<CertificateKey, Digests> cache = new ConcurrentHashMap<>();
    private static final int CACHE_CAPACITY = 256;

    /**
     * Creates a store with no sets; every document passes through {@code verifier} first. {@code options} are copied:
     * changing them afterwards changes nothing here.
     */
    public PinSetStore(DocumentVerifier verifier, PinningOptions options) {
        this.verifier = verifier;
        this.options = options.copy();
    }

    /** The verifier documents pass through. */
    public DocumentVerifier verifier() {
        return verifier;
    }

    /** The options in use (a copy of those given; treat it as read-only). */
    public PinningOptions options() {
        return options;
    }

    /** Verifies a freshly fetched document (§5 steps 1–6, rollback against the set in force) and swaps it in. */
    public VerifiedDocument accept(byte[] bytes, String host, long nowMillis) throws DocumentRejection {
        String name = HostNames.normalizeLenient(host);
        return install(verifier.verify(bytes, name, nowMillis, acceptedVersion(name)), name);
    }

    /** Installs a document accepted once (persisted) or shipped (bundled): every check but freshness. */
    public VerifiedDocument installTrusted(byte[] bytes, String host) throws DocumentRejection {
        String name = HostNames.normalizeLenient(host);
        return install(verifier.verifyIgnoringTime(bytes, name, acceptedVersion(name)), name);
    }

    /**
     * Installs the documents {@code pinset export --out DIR} wrote: each file of {@code DIR/pins/} (or of
     * {@code DIR} itself without a {@code pins} folder) is the document of the host it is named after, checked as
     * {@link #installTrusted}. A refused file changes nothing and does not stop the others.
     *
     * @return the outcome per file name: the document, or the {@link DocumentRejection}
     */
    public Map<String, Object> installBundledDocuments(File directory) {
        return installBundledDocuments(directory, null);
    }

    /**
     * {@link #installBundledDocuments(File)} under a C2SP tlog-policy (PROTOCOL §7.4): each document also needs its
     * tlog-proof in {@code DIR/proofs/<host>} (as {@code GET /pins/<host>/proof} serves it), checked by steps 1–2
     * (inclusion, the log's signature, the quorum; the trust document's {@code logKeys} count as log keys). Offline
     * there are no tiles, so step 3 waits for the first fetch; a bundled proof never becomes the largest checkpoint.
     * A missing or failing proof refuses the document with {@code notLogged}, as in the Swift client.
     *
     * @param logPolicy the policy; {@code null} checks no proof
     */
    public Map<String, Object> installBundledDocuments(File directory, @Nullable LogPolicy logPolicy) {
        File pins = new File(directory, "pins");
        File folder = pins.isDirectory() ? pins : directory;
        Map<String, Object> outcomes = new TreeMap<>();
        String[] names = folder.list();
        if (names == null) return outcomes;
        Arrays.sort(names);
        for (String name : names) {
            File file = new File(folder, name);
            if (name.startsWith(".") || !file.isFile()) continue;
            if (file.length() > DocumentVerifier.MAX_BYTES) {
                outcomes.put(name, new DocumentRejection(DocumentRejection.Code.TOO_LARGE,
                        name + " is larger than " + DocumentVerifier.MAX_BYTES + " bytes"));
                continue;
            }
            byte[] bytes = PinStorage.read(file);
            if (bytes == null) continue;
            try {
                if (logPolicy != null) checkBundledProof(bytes, new File(new File(directory, "proofs"), name), logPolicy);
                outcomes.put(name, installTrusted(bytes, name));
            } catch (DocumentRejection rejection) {
                outcomes.put(name, rejection);
            }
        }
        return outcomes;
    }

    /**
     * Installs one bundled document read from {@code input} (on Android an APK asset:
     * {@code context.getAssets().open("pinset/pins/api.example.com")}), checked as {@link #installTrusted}. Reads at
     * most {@link DocumentVerifier#MAX_BYTES} + 1 bytes on the caller's thread; the caller closes the stream.
     *
     * @param host the host the document must be for
     * @throws IOException when the stream fails
     * @throws DocumentRejection when the document is refused (code {@code tooLarge} when longer than
     *     {@link DocumentVerifier#MAX_BYTES}); the set in force, if any, stays
     */
    public VerifiedDocument installBundledDocument(String host, InputStream input) throws IOException, DocumentRejection {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = input.read(buffer)) > 0; ) {
            bytes.write(buffer, 0, n);
            if (bytes.size() > DocumentVerifier.MAX_BYTES) {
                throw new DocumentRejection(DocumentRejection.Code.TOO_LARGE,
                        "the bundled document of " + host + " is larger than " + DocumentVerifier.MAX_BYTES + " bytes");
            }
        }
        return installTrusted(bytes.toByteArray(), host);
    }

    private void checkBundledProof(byte[] document, File file, LogPolicy logPolicy) throws DocumentRejection {
        byte[] proof = file.length() > SignedNote.MAX_BYTES + 4096 ? null : PinStorage.read(file);
        if (proof == null) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "no readable proof at proofs/" + file.getName());
        }
        try {
            new LogProofVerifier(logPolicy.withLogKeysOf(verifier.trustStore() == null ? null : verifier.trustStore().current()), verifier.ed25519()).verify(document, LogProof.parse(proof));
        } catch (LogError e) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "proofs/" + file.getName() + ": " + e.getMessage());
        }
    }

    private VerifiedDocument install(VerifiedDocument document, String host) throws DocumentRejection {
        Policy policy = new Policy(document.pinSet(), document);
        synchronized (policies) {
            Policy current = policies.get(host);
            if (current != null && policy.acceptedVersion().compareTo(current.acceptedVersion()) < 0) {
                throw new DocumentRejection(DocumentRejection.Code.ROLLBACK, "version " + document.pinSet().version()
                        + " is older than version " + current.set.version() + " installed meanwhile");
            }
            policies.put(host, policy);
        }
        for (Runnable listener : changeListeners) listener.run();
        return document;
    }

    /** The set in force for exactly {@code host} (no parent lookup), or {@code null}. */
    @Nullable
    public PinSet pinSet(String host) {
        Policy policy = policies.get(HostNames.normalizeLenient(host));
        return policy == null ? null : policy.set;
    }

    /** The document the set in force for {@code host} came from, or {@code null}. */
    @Nullable
    public VerifiedDocument document(String host) {
        Policy policy = policies.get(HostNames.normalizeLenient(host));
        return policy == null ? null : policy.document;
    }

    /** The version marker of the set in force for {@code host}, or {@code null}. */
    @Nullable
    public AcceptedVersion acceptedVersion(String host) {
        Policy policy = policies.get(HostNames.normalizeLenient(host));
        return policy == null ? null : policy.acceptedVersion();
    }

    /** Every host that has a set, sorted. */
    public List<String> pinnedHosts() {
        return new ArrayList<>(new TreeSet<>(policies.keySet()));
    }

    /** Declares that the app pins {@code hosts}: until a set arrives they are {@code setMissing}, not unpinned. */
    public void expectSets(Iterable<String> hosts) {
        for (String host : hosts) expected.add(HostNames.normalizeLenient(host));
    }

    /** Adds an observer called (on the evaluating thread, keep it quick) for every pin failure. */
    public void observePinFailures(Consumer<PinFailure> observer) {
        observers.add(observer);
    }

    /** Removes one registration of {@code observer}; returns whether there was one. */
    public boolean removePinFailureObserver(Consumer<PinFailure> observer) {
        return observers.remove(observer);
    }

    /**
     * Adds a listener called after every set swapped in (on the installing thread). {@link PinningTrustManager}
     * drops its cached TLS sessions this way, so that no resumed session skips the new pins.
     */
    public void onSetChange(Runnable listener) {
        changeListeners.add(listener);
    }

    /**
     * Runs {@code action} on {@code target} after every swap for as long as {@code target} is reachable; holds it
     * weakly and removes itself once it is collected (an HTTP client's pool, a TLS context's session cache).
     */
    <T> void onSetChangeWhileReachable(T target, Consumer<T> action) {
        WeakReference<T> reference = new WeakReference<>(target);
        onSetChange(new Runnable() {
            @Override
            public void run() {
                T live = reference.get();
                if (live == null) {
                    removeSetChangeListener(this);
                } else {
                    action.accept(live);
                }
            }
        });
    }

    /** Removes one registration of {@code listener}; returns whether there was one. */
    public boolean removeSetChangeListener(Runnable listener) {
        return changeListeners.remove(listener);
    }

    /** Hosts whose set in force was signed by a key neither shipped nor listed by the trust state in force. */
    public List<String> hostsSignedByUndelegatedKeys() {
        TrustStore store = verifier.trustStore();
        List<String> result = new ArrayList<>();
        if (store == null) return result;
        TrustState trust = store.current();
        for (String host : pinnedHosts()) {
            VerifiedDocument document = document(host);
            if (document == null) continue;
            String kid = document.kid();
            if (!verifier.isShipped(kid) && !trust.signingKeys().containsKey(kid)) result.add(host);
        }
        return result;
    }

    /**
     * Evaluates an already standard-validated chain for {@code host} at {@code nowMillis} (PROTOCOL §5): the set
     * for the host, else the nearest parent's with includeSubdomains; passes when any certificate (leaf,
     * intermediate or root) matches an unexpired pin. Failures go to the observers.
     *
     * <p><b>Run standard chain and hostname validation first</b> ({@link PinningTrustManager} does): pins matched
     * against an unvalidated chain prove nothing.
     *
     * @param chain DER certificates, leaf first
     */
    public TrustDecision evaluate(List<byte[]> chain, String host, long nowMillis) {
        return evaluate(chain, host, nowMillis, true);
    }

    TrustDecision evaluate(List<byte[]> chain, String host, long nowMillis, boolean notify) {
        String name = HostNames.normalizeLenient(host);
        String noted = name;
        Policy policy = policies.get(name);
        if (policy == null) {
            String rest = name;
            for (int dot = rest.indexOf('.'); dot >= 0; dot = rest.indexOf('.')) {
                rest = rest.substring(dot + 1);
                Policy parent = policies.get(rest);
                if (parent != null && parent.set.includeSubdomains()) {
                    policy = parent;
                    noted = rest;
                    break;
                }
            }
        }
        if (policy == null) {
            if (expected.contains(name)) {
                return new TrustDecision(TrustDecision.Kind.SET_MISSING, options.allowMissingSets(), null, null, null);
            }
            return new TrustDecision(TrustDecision.Kind.HOST_NOT_PINNED, !options.denyUnpinnedHosts(), null, null, null);
        }
        if (policy.set.pins().isEmpty()) {
            return new TrustDecision(TrustDecision.Kind.HOST_NOT_PINNED, !options.denyUnpinnedHosts(), null, null, null);
        }
        if (nowMillis >= policy.set.expiresAt() + options.skewMillis() && options.stopPinningStaleSets()) {
            return new TrustDecision(TrustDecision.Kind.HOST_NOT_PINNED, true, null, null, null);
        }
        for (byte[] der : chain) {
            Digests digests = digests(der);
            for (Pin pin : policy.set.pins()) {
                if (!pin.isActive(nowMillis)) continue;
                byte[] candidate = pin.type() == Pin.Type.CERTIFICATE ? digests.certificate : digests.spki;
                if (candidate != null && Arrays.equals(candidate, pin.hash())) {
                    return new TrustDecision(TrustDecision.Kind.TRUSTED, true, pin, noted, null);
                }
            }
        }
        List<Pin> active = new ArrayList<>();
        for (Pin pin : policy.set.pins()) {
            if (pin.isActive(nowMillis)) active.add(pin);
        }
        PinFailure failure = new PinFailure(name, noted, policy.set, chain, active, nowMillis, null);
        if (notify) {
            for (Consumer<PinFailure> observer : observers) observer.accept(failure);
        }
        boolean enforce = policy.set.enforce();
        return new TrustDecision(enforce ? TrustDecision.Kind.PIN_MISMATCH : TrustDecision.Kind.REPORT_ONLY_MISMATCH,
                !enforce, null, noted, failure);
    }

    private Digests digests(byte[] der) {
        CertificateKey key = new CertificateKey(der);
        Digests cached = cache.get(key);
        if (cached != null) return cached;
        byte[] spki = SpkiPin.spkiDer(der);
        Digests digests = new Digests(spki == null ? null : Sha256.hash(spki), Sha256.hash(der));
        if (cache.size() >= CACHE_CAPACITY) cache.clear();
        cache.put(new CertificateKey(der.clone()), digests);
        return digests;
    }
}
