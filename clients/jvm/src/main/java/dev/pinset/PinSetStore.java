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
        /** For a bundled document installed with its proof: the proof's checkpoint (the fork block may drop it). */
        @Nullable final SignedNote bundledCheckpoint;

        Policy(PinSet set, VerifiedDocument document, @Nullable SignedNote bundledCheckpoint) {
            this.set = set;
            this.document = document;
            this.bundledCheckpoint = bundledCheckpoint;
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
     * The transparency-log state of the updater with a tlog-policy that keeps this store's sets
     * ({@link PinSetUpdater.Builder#logPolicy}), or {@code null}: with one, every document installed here needs its
     * proof, and none under a log key that signed a fork is accepted (PROTOCOL §7.4).
     */
    @Nullable private volatile LogCheckpoints log;

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

    /**
     * Verifies a freshly fetched document (§5 steps 1–6, rollback against the set in force) and swaps it in.
     *
     * @throws DocumentRejection also {@code notLogged} when an updater with a tlog-policy keeps this store's sets:
     *     then only the updater, which checks each document's proof (PROTOCOL §7.4), installs fetched documents
     */
    public VerifiedDocument accept(byte[] bytes, String host, long nowMillis) throws DocumentRejection {
        requireNoLog(host);
        return acceptLogged(bytes, host, nowMillis);
    }

    /** {@link #accept} for the updater, once the document's proof passed PROTOCOL §7.4. */
    VerifiedDocument acceptLogged(byte[] bytes, String host, long nowMillis) throws DocumentRejection {
        String name = HostNames.normalizeLenient(host);
        return install(verifier.verify(bytes, name, nowMillis, acceptedVersion(name)), name, null);
    }

    /**
     * Installs a document accepted once (persisted) or shipped (bundled): every check but freshness.
     *
     * @throws DocumentRejection also {@code notLogged} when an updater with a tlog-policy keeps this store's sets: a
     *     document without its proof is then refused (install a bundled one with its proof:
     *     {@link #installBundledDocument(String, InputStream, InputStream, LogPolicy)})
     */
    public VerifiedDocument installTrusted(byte[] bytes, String host) throws DocumentRejection {
        requireNoLog(host);
        return installPersisted(bytes, host);
    }

    /**
     * {@link #installTrusted} for the updater's persisted documents: each was accepted with its proof before any fork
     * was seen after it, so it is the set in force that PROTOCOL §7.4 keeps.
     */
    VerifiedDocument installPersisted(byte[] bytes, String host) throws DocumentRejection {
        String name = HostNames.normalizeLenient(host);
        return install(verifier.verifyIgnoringTime(bytes, name, acceptedVersion(name)), name, null);
    }

    private void requireNoLog(String host) throws DocumentRejection {
        if (log != null) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "the document of " + host + " comes without"
                    + " its proof, and the updater has a tlog-policy (PROTOCOL §7.4)");
        }
    }

    /** Called by an updater with a tlog-policy: from now on every install here goes through its checks. */
    void useLog(LogCheckpoints checkpoints) {
        this.log = checkpoints;
    }

    /**
     * Drops every set installed from a bundle whose proof's checkpoint is signed only by log keys that signed a fork
     * (PROTOCOL §7.4: no document under them is accepted after the fork), as the updater learns of persisted forks
     * after the app installed its bundle. Another set (the persisted one) may then be installed.
     *
     * @return the hosts whose set was dropped, sorted
     */
    List<String> dropBundledSetsUnderForkedKeys(LogCheckpoints checkpoints) {
        List<String> dropped = new ArrayList<>();
        for (String host : pinnedHosts()) {
            Policy policy = policies.get(host);
            if (policy == null || policy.bundledCheckpoint == null || !checkpoints.isBlocked(policy.bundledCheckpoint)) {
                continue;
            }
            if (policies.remove(host, policy)) dropped.add(host);
        }
        if (!dropped.isEmpty()) {
            for (Runnable listener : changeListeners) listener.run();
        }
        return dropped;
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
     * tlog-proof in {@code DIR/proofs/<host>} or {@code DIR/proof/pins/<host>} (where {@code pinset export --log-from}
     * writes it; the bytes {@code GET /pins/<host>/proof} serves), checked by steps 1–2
     * (inclusion, the log's signature, the quorum; the trust document's {@code logKeys} count as log keys). Offline
     * there are no tiles, so step 3 waits for the first fetch; a bundled proof never becomes the largest checkpoint.
     * A missing or failing proof refuses the document with {@code notLogged}, as in the Swift client.
     *
     * <p>When an updater with a tlog-policy keeps this store's sets, its checks apply to every bundled document
     * (with {@code logPolicy} {@code null}, under the updater's policy): a document whose proof's checkpoint is
     * signed only by a log key that signed a fork is refused ({@code notLogged}) until a trust document names another
     * log key, and a proof whose checkpoint has the size of the largest accepted but another root is a fork
     * ({@code logFork}), reported as the updater reports one. A bundle installed before the updater existed is
     * checked again when it loads its persisted forks.
     *
     * @param logPolicy the policy; {@code null} checks no proof (without an updater with a policy)
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
                // proofs/<host>, or where `pinset export --log-from` writes it (PROTOCOL §7.3's mirror file name).
                File proof = new File(new File(directory, "proofs"), name);
                if (!proof.isFile()) proof = new File(new File(new File(directory, "proof"), "pins"), name);
                byte[] proofBytes = proof.length() > MAX_PROOF_BYTES ? null : PinStorage.read(proof);
                String where = proof.getParentFile().getName().equals("proofs") ? "proofs/" + name : "proof/pins/" + name;
                outcomes.put(name, installBundled(name, bytes, proofBytes, where, logPolicy));
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
     *     {@link DocumentVerifier#MAX_BYTES}; {@code notLogged} when an updater with a tlog-policy keeps this store's
     *     sets, since it comes without its proof: use {@link #installBundledDocument(String, InputStream, InputStream,
     *     LogPolicy)}); the set in force, if any, stays
     */
    public VerifiedDocument installBundledDocument(String host, InputStream input) throws IOException, DocumentRejection {
        return installBundled(host, readBounded(input, DocumentVerifier.MAX_BYTES, "the bundled document of " + host),
                null, "the proof of " + host, null);
    }

    /**
     * {@link #installBundledDocument(String, InputStream)} under a C2SP tlog-policy, with the document's tlog-proof
     * read from {@code proof} (as {@code GET /pins/<host>/proof} serves it; on Android the asset
     * {@code pinset/proofs/<host>}), checked as {@link #installBundledDocuments(File, LogPolicy)} checks a file's.
     * The caller closes both streams.
     *
     * @param logPolicy the policy; {@code null}: the policy of the updater that keeps this store's sets (without one,
     *     the proof is not checked)
     * @throws IOException when a stream fails
     * @throws DocumentRejection when the document is refused ({@code notLogged}, {@code logFork}, {@code tooLarge},
     *     or any refusal of {@link #installTrusted}); the set in force, if any, stays
     */
    public VerifiedDocument installBundledDocument(String host, InputStream input, InputStream proof,
            @Nullable LogPolicy logPolicy) throws IOException, DocumentRejection {
        byte[] document = readBounded(input, DocumentVerifier.MAX_BYTES, "the bundled document of " + host);
        byte[] proofBytes = readBounded(proof, MAX_PROOF_BYTES, "the bundled proof of " + host);
        return installBundled(host, document, proofBytes, "the proof of " + host, logPolicy);
    }

    /** A bundled proof's size limit: a checkpoint note and an inclusion proof of at most 63 hashes. */
    private static final int MAX_PROOF_BYTES = SignedNote.MAX_BYTES + 4096;

    private static byte[] readBounded(InputStream input, int limit, String what) throws IOException, DocumentRejection {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = input.read(buffer)) > 0; ) {
            bytes.write(buffer, 0, n);
            if (bytes.size() > limit) {
                throw new DocumentRejection(DocumentRejection.Code.TOO_LARGE, what + " is larger than " + limit + " bytes");
            }
        }
        return bytes.toByteArray();
    }

    /**
     * The one path of every bundled document: under {@code given}, else the policy of the updater that keeps this
     * store's sets, the proof is checked (PROTOCOL §7.4 offline, and the fork block with an updater's state); without
     * either, no proof is needed.
     *
     * @param proof the proof's bytes, {@code null} when there is none
     * @param proofName where the proof was looked for, for the refusal
     */
    private VerifiedDocument installBundled(String host, byte[] document, @Nullable byte[] proof, String proofName,
            @Nullable LogPolicy given) throws DocumentRejection {
        String name = HostNames.normalizeLenient(host);
        LogCheckpoints checkpoints = log;
        LogPolicy policy = given != null ? given : checkpoints != null ? checkpoints.policy() : null;
        if (policy == null) return installPersisted(document, name);
        if (proof == null) throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, "no readable proof at " + proofName);
        LogProof parsed;
        try {
            parsed = LogProof.parse(proof);
        } catch (LogError e) {
            throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, proofName + ": " + e.getMessage());
        }
        SignedNote checkpoint;
        if (checkpoints != null) {
            checkpoint = checkpoints.checkBundled(name, document, parsed, policy);
        } else {
            TrustState keys = verifier.trustStore() == null ? null : verifier.trustStore().current();
            try {
                new LogProofVerifier(policy.withLogKeysOf(keys), verifier.ed25519()).verify(document, parsed);
            } catch (LogError e) {
                throw new DocumentRejection(DocumentRejection.Code.NOT_LOGGED, proofName + ": " + e.getMessage());
            }
            checkpoint = parsed.checkpoint();
        }
        return install(verifier.verifyIgnoringTime(document, name, acceptedVersion(name)), name, checkpoint);
    }

    private VerifiedDocument install(VerifiedDocument document, String host, @Nullable SignedNote bundledCheckpoint)
            throws DocumentRejection {
        Policy policy = new Policy(document.pinSet(), document, bundledCheckpoint);
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
