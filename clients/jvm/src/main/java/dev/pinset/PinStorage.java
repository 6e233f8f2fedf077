package dev.pinset;

import dev.pinset.internal.Base64Codec;
import dev.pinset.internal.HostNames;
import dev.pinset.internal.NoteText;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;

/**
 * Persists accepted documents in a directory the app chooses (on Android, {@code context.getNoBackupFilesDir()}),
 * with the Swift client's file names: {@code <host>.pinset.jws.json} and
 * {@code trust-<version>.pinset-trust.jws.json}, plus the largest checkpoint of each transparency log
 * ({@code log-<base64url(origin)>.checkpoint}, PROTOCOL §7.4) and the evidence of any fork. Files hold the documents exactly as received, so they are
 * verified again on reload and rollback protection holds across restarts.
 */
public final class PinStorage {
    private final File directory;

    /** A storage in {@code directory} (created on first save). */
    public PinStorage(File directory) {
        this.directory = directory;
    }

    /** Writes the document of {@code host} atomically (temporary file, then rename). */
    public void save(String host, byte[] bytes) throws IOException {
        String name;
        try {
            name = HostNames.normalize(host);
        } catch (HostNames.InvalidHostException e) {
            throw new IOException("refusing to store a document under a host that is not a DNS name");
        }
        write(new File(directory, name + ".pinset.jws.json"), bytes);
    }

    /** The stored document of {@code host}, or {@code null}. */
    @Nullable
    public byte[] load(String host) {
        try {
            return read(new File(directory, HostNames.normalize(host) + ".pinset.jws.json"));
        } catch (HostNames.InvalidHostException e) {
            return null;
        }
    }

    /** Writes trust document {@code version} atomically. */
    public void saveTrust(long version, byte[] bytes) throws IOException {
        write(trustFile(version), bytes);
    }

    /** The stored trust documents {@code version + 1}, {@code version + 2}, … up to the first missing one. */
    public List<byte[]> loadTrustChain(long version) {
        List<byte[]> chain = new ArrayList<>();
        for (long next = version + 1; ; next++) {
            byte[] bytes = read(trustFile(next));
            if (bytes == null) return chain;
            chain.add(bytes);
        }
    }

    /** Writes the largest accepted checkpoint of the log {@code origin} (a signed note) atomically. */
    public void saveCheckpoint(String origin, byte[] note) throws IOException {
        write(checkpointFile(origin), note);
    }

    /** The stored largest checkpoint of the log {@code origin}, or {@code null}. */
    @Nullable
    public byte[] loadCheckpoint(String origin) {
        return read(checkpointFile(origin));
    }

    /**
     * Keeps the evidence of a fork (the report JSON, both signed notes) as {@code log-fork-<base64url(origin)>-<n>.json},
     * {@code n} the first free number from 1; at most 100 are kept, as the Swift client does.
     */
    void saveFork(SignedNote kept, byte[] report) throws IOException {
        String origin;
        try {
            origin = Checkpoint.parse(kept.text()).origin();
        } catch (LogError e) {
            origin = "";
        }
        String prefix = "log-fork-" + Base64Codec.encodeUrl(NoteText.utf8(origin)) + "-";
        for (int number = 1; number <= 100; number++) {
            File file = new File(directory, prefix + number + ".json");
            if (!file.exists()) {
                write(file, report);
                return;
            }
        }
        throw new IOException("100 log forks are stored already in " + directory + "; the newest is not kept");
    }

    /**
     * The fork reports {@link #saveFork} kept for the log {@code origin}, as stored (unverified: the caller checks both
     * notes), as the Swift client's {@code loadForks}.
     */
    List<byte[]> loadForks(String origin) {
        String prefix = "log-fork-" + Base64Codec.encodeUrl(NoteText.utf8(origin)) + "-";
        List<byte[]> reports = new ArrayList<>();
        for (int number = 1; number <= 100; number++) {
            byte[] bytes = read(new File(directory, prefix + number + ".json"));
            if (bytes != null) reports.add(bytes);
        }
        return reports;
    }

    /** {@code log-<base64url(origin)>.checkpoint}, the Swift client's name. */
    private File checkpointFile(String origin) {
        return new File(directory, "log-" + Base64Codec.encodeUrl(NoteText.utf8(origin)) + ".checkpoint");
    }

    private File trustFile(long version) {
        return new File(directory, "trust-" + version + ".pinset-trust.jws.json");
    }

    private void write(File file, byte[] bytes) throws IOException {
        if (!directory.isDirectory() && !directory.mkdirs()) throw new IOException("could not create " + directory);
        File temporary = new File(directory, "." + file.getName() + ".tmp");
        try (FileOutputStream out = new FileOutputStream(temporary)) {
            out.write(bytes);
            out.getFD().sync();
        }
        if (!temporary.renameTo(file)) throw new IOException("could not rename " + temporary + " to " + file);
    }

    /** The file's bytes, or {@code null}; read with {@code FileInputStream} ({@code java.nio.file} needs API 26). */
    static byte[] read(File file) {
        if (!file.isFile()) return null;
        try (FileInputStream in = new FileInputStream(file)) {
            return UrlConnectionTransport.readAll(in);
        } catch (IOException e) {
            return null;
        }
    }
}
