import Foundation

/// The test targets' one TLS test host: `openssl s_server` on a random 127.0.0.0/8 address and port, serving a
/// leaf issued by a test CA (chain: leaf, CA), with the keys `current`, `backup` and `rogue`. ``serve(key:days:)``
/// switches to another leaf key.
public final class TLSTestHost: @unchecked Sendable {
    /// The folder holding the CA, the keys and the leaves.
    public let directory: URL
    /// The host name of the leaves.
    public let name: String
    /// The loopback address it listens on.
    public let ip: String
    /// Its port (kept across ``serve(key:days:)`` restarts).
    public private(set) var port = 0
    private var server: ChildProcess?

    /// Creates the CA and the keys `current`, `backup` and `rogue`, and starts serving `current`.
    public init(name: String = "api.example.com", days: Int = 90) throws {
        self.name = name
        ip = "127.0.\(Int.random(in: 1...250)).\(Int.random(in: 2...250))"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try shell(
            """
            printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign,cRLSign\\n' > ca.ext && \
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 30 -subj /CN=Test-CA 2>/dev/null
            """)
        try makeKey("current")
        try makeKey("backup")
        try makeKey("rogue")
        try serve(key: "current", days: days)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `HOST:443:ADDR:PORT`: the `--connect-to` mapping that sends probes of the host here.
    public var mapping: String { "\(name):443:\(ip):\(port)" }

    /// Creates the EC key `NAME.key`.
    public func makeKey(_ key: String) throws {
        try shell("openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out \(key).key 2>/dev/null")
    }

    /// The SPKI pin (base64 SHA-256) of key `NAME.key`.
    public func pin(_ key: String) throws -> String {
        try shell("openssl pkey -in \(key).key -pubout -outform DER | openssl dgst -sha256 -binary | base64")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Issues `NAME.pem`, a leaf for ``name`` with key `NAME.key`, valid `days`, signed by the CA.
    public func issue(_ key: String, days: Int = 90) throws {
        try shell(
            """
            printf 'subjectAltName=DNS:\(name)\\n' > leaf.ext && \
            openssl req -new -key \(key).key -out \(key).csr -subj /CN=\(name) 2>/dev/null && \
            openssl x509 -req -in \(key).csr -CA ca.pem -CAkey ca.key -CAcreateserial -out \(key).pem -days \(days) -extfile leaf.ext 2>/dev/null
            """)
    }

    /// Path of a file in the host's directory.
    public func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    /// (Re)starts the server with a leaf for `key`, on the same address and port as before.
    public func serve(key: String, days: Int = 90) throws {
        try issue(key, days: days)
        try serve(certificate: "\(key).pem", key: "\(key).key", chain: "ca.pem")
    }

    /// (Re)starts the server with files of ``directory``: the leaf `certificate`, its `key`, and `chain` (the
    /// certificates sent after the leaf), on the same address and port as before.
    public func serve(certificate: String, key: String, chain: String) throws {
        stop()
        let restarting = port != 0  // a restart keeps its port: the server's --connect-to mapping names it
        for attempt in 0..<5 {
            if !restarting, port == 0 || attempt > 0 { port = Int.random(in: 20_000...60_000) }
            let process = try ProcessRunner.start(
                "/usr/bin/openssl",
                [
                    "s_server", "-accept", "\(ip):\(port)", "-cert", certificate, "-key", key, "-cert_chain", chain,
                    "-quiet", "-www",
                ], directory: directory)
            for _ in 0..<50 {
                if RawConnection.accepts(host: ip, port: port) {
                    server = process
                    return
                }
                if !process.isRunning { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            process.kill()
            process.waitUntilExit()
        }
        throw StartFailed(description: "openssl s_server on \(ip):\(port) never accepted a connection")
    }

    /// The server never accepted a connection.
    public struct StartFailed: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// Stops the server (s_server does not always stop on SIGTERM: SIGKILL).
    public func stop() {
        guard let server else { return }
        server.kill()
        server.waitUntilExit()
        self.server = nil
    }

    /// Runs `script` with `/bin/sh` in ``directory``; its standard output.
    @discardableResult
    public func shell(_ script: String) throws -> String {
        String(decoding: try ProcessRunner.shell(script, in: directory), as: UTF8.self)
    }
}
