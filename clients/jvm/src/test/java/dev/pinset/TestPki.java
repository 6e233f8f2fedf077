package dev.pinset;

import dev.pinset.internal.Base64Codec;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;

/** A test CA and localhost leaves made with the openssl CLI, and s_server processes serving them. */
final class TestPki {
    final Processes processes;
    final File ca;

    TestPki(Processes processes) throws Exception {
        this.processes = processes;
        ca = new File(processes.directory, "ca.pem");
        processes.run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=pinset JVM test CA", "-days", "30",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign");
        java.nio.file.Files.writeString(new File(processes.directory, "leaf.ext").toPath(),
                "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n");
    }

    /** A new localhost leaf (its own key) signed by the CA: {@code NAME.pem} and {@code NAME.key}. */
    String leaf(String name) throws Exception {
        processes.run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                name + ".key", "-out", name + ".csr", "-subj", "/CN=localhost");
        processes.run("openssl", "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "7", "-extfile", "leaf.ext", "-out", name + ".pem");
        return name;
    }

    /** The SPKI pin of a leaf, computed with the openssl pipeline of FIELD-NOTES (not with the client's code). */
    String pin(String name) throws Exception {
        return processes.run("bash", "-c", "openssl x509 -in " + name + ".pem -pubkey -noout"
                + " | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64").trim();
    }

    /** Starts {@code openssl s_server -www} for a leaf on a free loopback port; returns the port. */
    int serve(String name) throws Exception {
        int port = Processes.freePort();
        processes.start(new File(processes.directory, "s_server-" + name + ".log"), "openssl", "s_server", "-accept",
                "127.0.0.1:" + port, "-cert", name + ".pem", "-key", name + ".key", "-cert_chain", "ca.pem",
                "-quiet", "-www");
        Processes.awaitPort(port);
        return port;
    }

    /** A key store holding the test CA: the client's standard validation trusts it and nothing else. */
    KeyStore roots() throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = new FileInputStream(ca)) {
            store.setCertificateEntry("test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        return store;
    }

    /** A fresh Ed25519 key made by openssl: {@code NAME.pem} (private, 0600) and {@code NAME.pub.pem}. */
    File ed25519(String name) throws Exception {
        processes.run("openssl", "genpkey", "-algorithm", "ed25519", "-out", name + ".pem");
        processes.run("chmod", "600", name + ".pem");
        processes.run("openssl", "pkey", "-in", name + ".pem", "-pubout", "-out", name + ".pub.pem");
        return new File(processes.directory, name + ".pem");
    }

    /** A random 32-byte pin nobody serves (the backup key of a set). */
    static String randomPin() {
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        return Base64Codec.encodeStandard(bytes);
    }
}
