package dev.pinset;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real helpers of the end-to-end tests (openssl, pinset), every wait bounded, everything stopped at close. */
final class Processes implements AutoCloseable {
    final File directory;
    private final List<Process> running = new ArrayList<>();

    Processes(File directory) {
        this.directory = directory;
    }

    /** Runs a command to completion (60 s at most) and returns its standard output; throws on a non-zero exit. */
    String run(String... command) throws IOException, InterruptedException {
        File out = File.createTempFile("out", ".txt", directory);
        File err = File.createTempFile("err", ".txt", directory);
        Process process = new ProcessBuilder(command).directory(directory).redirectOutput(out).redirectError(err).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(Arrays.toString(command) + " did not finish in 60 s");
        }
        String stdout = Files.readString(out.toPath(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IOException(Arrays.toString(command) + " exited " + process.exitValue() + ": "
                    + Files.readString(err.toPath(), StandardCharsets.UTF_8));
        }
        return stdout;
    }

    /** Starts a long-running command with its output in {@code log}. */
    Process start(File log, String... command) throws IOException {
        Process process = new ProcessBuilder(command).directory(directory).redirectErrorStream(true)
                .redirectOutput(log).start();
        running.add(process);
        return process;
    }

    /** Stops a process started here (SIGTERM, then at most 10 s). */
    void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        running.remove(process);
    }

    /** Waits (at most 10 s) until something accepts TCP connections on 127.0.0.1:{@code port}. */
    static void awaitPort(int port) throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IOException("nothing listens on 127.0.0.1:" + port + " after 10 s");
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    static File temporaryDirectory(String prefix) throws IOException {
        return Files.createTempDirectory(prefix).toFile();
    }

    static void deleteTree(File file) {
        File[] children = file.listFiles();
        if (children != null) for (File child : children) deleteTree(child);
        file.delete();
    }

    @Override
    public void close() {
        for (Process process : new ArrayList<>(running)) {
            try {
                stop(process);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
