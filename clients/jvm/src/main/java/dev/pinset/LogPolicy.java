package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.NoteText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;

/**
 * A C2SP tlog-policy (PROTOCOL §7.4): the logs ({@code log <vkey> [<url>]}), the witnesses
 * ({@code witness <name> <vkey> [<url>]}), groups ({@code group <name> <all|any|k> <name>...}) and one
 * {@code quorum <name|none>}; names are defined before they are used and each is a group member at most once.
 * The same rules as the Swift {@code LogPolicy}.
 */
public final class LogPolicy {
    /** The most logs, witnesses and groups together. */
    public static final int MAX_ITEMS = 256;

    /** A group: how many of its members must be witnessed. */
    private static final class Group {
        final int threshold;
        final List<String> members;

        Group(int threshold, List<String> members) {
            this.threshold = threshold;
            this.members = members;
        }
    }

    private final List<VerifierKey> logs = new ArrayList<>();
    /** The URL given on a {@code log} line, by origin (the first one given for it). */
    private final Map<String, String> logUrls = new HashMap<>();
    private final Map<String, VerifierKey> witnesses = new LinkedHashMap<>();
    private final Map<String, Group> groups = new HashMap<>();
    private String quorum;

    private LogPolicy() {}

    /** Parses a policy file. */
    public static LogPolicy parse(byte[] raw) throws LogError {
        for (byte b : raw) {
            if ((b >= 0 && b < 0x20 && b != 0x09 && b != 0x0A) || b == 0x7F) {
                throw malformed("the policy has a control character other than tab and newline");
            }
        }
        LogPolicy policy = new LogPolicy();
        Set<String> names = new HashSet<>();
        Set<String> keys = new HashSet<>();
        Set<String> members = new HashSet<>();
        String[] lines = new String(raw, StandardCharsets.UTF_8).split("\n", -1);
        for (int number = 0; number < lines.length; number++) {
            String at = "line " + (number + 1);
            List<String> words = new ArrayList<>();
            for (String word : lines[number].split("[ \t]+")) if (!word.isEmpty()) words.add(word);
            if (words.isEmpty() || words.get(0).startsWith("#")) continue;
            if (policy.logs.size() + policy.witnesses.size() + policy.groups.size() >= MAX_ITEMS) {
                throw malformed(at + ": more than " + MAX_ITEMS + " logs, witnesses and groups");
            }
            switch (words.get(0)) {
                case "log": {
                    if (words.size() != 2 && words.size() != 3) throw malformed(at + ": log <vkey> [<url>]");
                    VerifierKey key = key(words.get(1), VerifierKey.ED25519, at);
                    if (!keys.add(Base64Codec.encodeUrl(key.publicKey()))) throw malformed(at + ": a duplicate key");
                    policy.logs.add(key);
                    if (words.size() == 3) policy.logUrls.putIfAbsent(key.name(), words.get(2));
                    break;
                }
                case "witness": {
                    if (words.size() != 3 && words.size() != 4) throw malformed(at + ": witness <name> <vkey> [<url>]");
                    define(words.get(1), names, at);
                    VerifierKey key = key(words.get(2), VerifierKey.COSIGNATURE, at);
                    if (!keys.add(Base64Codec.encodeUrl(key.publicKey()))) throw malformed(at + ": a duplicate key");
                    policy.witnesses.put(words.get(1), key);
                    break;
                }
                case "group": {
                    if (words.size() < 4) throw malformed(at + ": group <name> <all|any|k> <name>...");
                    List<String> listed = new ArrayList<>(words.subList(3, words.size()));
                    for (String member : listed) {
                        if (!names.contains(member)) throw malformed(at + ": " + member + " is not defined on an earlier line");
                        if (!members.add(member)) throw malformed(at + ": " + member + " is already a member of a group");
                    }
                    int threshold;
                    if (words.get(2).equals("all")) {
                        threshold = listed.size();
                    } else if (words.get(2).equals("any")) {
                        threshold = 1;
                    } else {
                        long k = NoteText.decimal(words.get(2));
                        if (k < 1 || k > listed.size()) throw malformed(at + ": the threshold is all, any or 1 to " + listed.size());
                        threshold = (int) k;
                    }
                    define(words.get(1), names, at);
                    policy.groups.put(words.get(1), new Group(threshold, listed));
                    break;
                }
                case "quorum":
                    if (words.size() != 2) throw malformed(at + ": quorum <name>");
                    if (policy.quorum != null) throw malformed(at + ": a second quorum line");
                    if (!words.get(1).equals("none") && !names.contains(words.get(1))) {
                        throw malformed(at + ": " + words.get(1) + " is not defined on an earlier line");
                    }
                    policy.quorum = words.get(1);
                    break;
                default:
                    throw malformed(at + ": unknown keyword " + words.get(0));
            }
        }
        if (policy.quorum == null) throw malformed("the policy has no quorum line");
        return policy;
    }

    private static VerifierKey key(String text, int type, String at) throws LogError {
        VerifierKey key;
        try {
            key = VerifierKey.parse(text);
        } catch (LogError e) {
            throw malformed(at + ": " + e.detail());
        }
        if (key.type() != type) throw malformed(at + ": the key has signature type 0x0" + key.type() + ", not 0x0" + type);
        return key;
    }

    private static void define(String name, Set<String> names, String at) throws LogError {
        if (name.equals("none")) throw malformed(at + ": none is predefined");
        if (!names.add(name)) throw malformed(at + ": " + name + " is defined twice");
    }

    private static LogError malformed(String detail) {
        return new LogError(LogError.Code.MALFORMED, detail);
    }

    /** The logs' keys (type {@code 0x01}). */
    List<VerifierKey> logs() {
        return Collections.unmodifiableList(logs);
    }

    /** The URL a {@code log} line gave for the log named {@code origin} (its tiles' prefix), or {@code null}. */
    @Nullable
    public String logUrl(String origin) {
        return logUrls.get(origin);
    }

    /** The witnesses' keys (type {@code 0x04}) by name. */
    Map<String, VerifierKey> witnesses() {
        return Collections.unmodifiableMap(witnesses);
    }

    /** The quorum's name ({@code none}, a witness or a group). */
    public String quorum() {
        return quorum;
    }

    /**
     * This policy with {@code publicKeys} (raw 32-byte Ed25519 keys, e.g. a trust document's {@code logKeys}) accepted
     * as further keys of every log it names: a JWK carries no origin, so each is added under each log's origin. A key
     * the policy already holds, or not 32 bytes, is skipped; witnesses and the quorum are unchanged. As the Swift
     * {@code LogPolicy.addingLogKeys}.
     */
    LogPolicy withLogKeys(Iterable<byte[]> publicKeys) {
        LogPolicy policy = new LogPolicy();
        policy.logs.addAll(logs);
        policy.logUrls.putAll(logUrls);
        policy.witnesses.putAll(witnesses);
        policy.groups.putAll(groups);
        policy.quorum = quorum;
        Set<String> origins = new java.util.TreeSet<>();
        for (VerifierKey key : logs) origins.add(key.name());
        for (String origin : origins) {
            for (byte[] raw : publicKeys) {
                try {
                    VerifierKey key = VerifierKey.of(origin, VerifierKey.ED25519, raw);
                    if (!policy.logs.contains(key)) policy.logs.add(key);
                } catch (LogError skipped) {
                    continue;
                }
            }
        }
        return policy;
    }

    /** This policy with the {@code logKeys} of {@code state} (none: {@code null}). */
    LogPolicy withLogKeysOf(TrustState state) {
        if (state == null || state.logKeys().isEmpty()) return this;
        List<byte[]> keys = new ArrayList<>();
        for (TrustedKey key : state.logKeys().values()) keys.add(key.raw());
        return withLogKeys(keys);
    }

    /** Whether the witnesses named {@code cosigned} meet the quorum. */
    boolean isQuorumMet(Set<String> cosigned) {
        return isWitnessed(quorum, cosigned, 0);
    }

    private boolean isWitnessed(String name, Set<String> cosigned, int depth) {
        if (name.equals("none")) return true;
        Group group = groups.get(name);
        if (group == null) return cosigned.contains(name);
        int count = 0;
        for (String member : group.members) if (depth < MAX_ITEMS && isWitnessed(member, cosigned, depth + 1)) count++;
        return count >= group.threshold;
    }
}
