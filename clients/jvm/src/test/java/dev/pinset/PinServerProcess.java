package dev.pinset;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A real {@code pinset serve} process on an ephemeral loopback port, driven through its admin API. */
final class PinServerProcess {
    static final String BINARY = System.getProperty("pinset.binary", "../../.build/debug/pinset");

    final String url;
    final String token;
    final Process process;

    private PinServerProcess(String url, String token, Process process) {
        this.url = url;
        this.token = token;
        this.process = process;
    }

    /** An admin token for {@code database} (created before the server starts, as `pinset token create` does). */
    static String createToken(Processes processes, File database) throws Exception {
        String out = processes.run(BINARY, "token", "create", "--db", database.getPath(), "--name", "jvm-e2e");
        String[] lines = out.trim().split("\n");
        return lines[lines.length - 1].trim();
    }

    /** Starts {@code pinset serve} (refresh 1 s, no pre-flight) with {@code extra} options and waits for its URL. */
    static PinServerProcess start(Processes processes, File database, File key, String token, String... extra)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(BINARY, "serve", "--db", database.getPath(), "--key",
                key.getPath(), "--port", "0", "--refresh", "1s", "--preflight", "off"));
        command.addAll(List.of(extra));
        File log = File.createTempFile("serve", ".log", processes.directory);
        Process process = processes.start(log, command.toArray(new String[0]));
        Pattern address = Pattern.compile("http://127\\.0\\.0\\.1:[0-9]+");
        for (int attempt = 0; attempt < 300; attempt++) {
            Matcher matcher = address.matcher(Files.readString(log.toPath()));
            if (matcher.find()) return new PinServerProcess(matcher.group(), token, process);
            if (!process.isAlive()) break;
            Thread.sleep(100);
        }
        throw new IOException("pinset serve printed no URL: " + Files.readString(log.toPath()));
    }

    /** An admin request with the bearer token; returns the status. */
    int send(String method, String path, String body) throws IOException {
        return request(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), true).status;
    }

    /** {@code PUT /admin/hosts/{host}} with a current and a backup pin, enforcing; returns the status. */
    int putSet(String host, String current, String backup, String reportUri) throws IOException {
        String report = reportUri == null ? "" : ",\"reportUri\":\"" + reportUri + "\"";
        return send("PUT", "/admin/hosts/" + host, "{\"pins\":[{\"sha256\":\"" + current
                + "\",\"role\":\"current\"},{\"sha256\":\"" + backup + "\",\"role\":\"backup\"}]" + report + "}");
    }

    /** {@code PUT /admin/trust} with a trust document file; returns the status. */
    int pushTrust(File document) throws IOException {
        return request("PUT", "/admin/trust", Files.readAllBytes(document.toPath()), true).status;
    }

    /** The body of an admin GET. */
    String adminGet(String path) throws IOException {
        return new String(request("GET", path, null, true).body, StandardCharsets.UTF_8);
    }

    /** A public GET (no token). */
    byte[] get(String path) throws IOException {
        return request("GET", path, null, false).body;
    }

    private static final class Answer {
        final int status;
        final byte[] body;

        Answer(int status, byte[] body) {
            this.status = status;
            this.body = body;
        }
    }

    private Answer request(String method, String path, byte[] body, boolean admin) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url + path).openConnection();
        try {
            connection.setConnectTimeout(5000);
            connection.setReadTimeout(15000);
            connection.setRequestMethod(method);
            if (admin) connection.setRequestProperty("Authorization", "Bearer " + token);
            if (body != null) {
                connection.setDoOutput(true);
                connection.setRequestProperty("Content-Type", "application/json");
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = connection.getResponseCode();
            InputStream stream = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            if (stream != null) {
                try (InputStream in = stream) {
                    in.transferTo(bytes);
                }
            }
            return new Answer(status, bytes.toByteArray());
        } finally {
            connection.disconnect();
        }
    }
}
