import ArgumentParser
import Dispatch
import Foundation
import Locking
import Logging
import MicroHTTPD
import PinSetLogServer
import PinSetOpenSSL
import PinSetServer
import TransparencyLog

#if canImport(Glibc)
    import Glibc
#endif

/// `pinset serve`: runs the pin server until SIGTERM or SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the pin server.",
        discussion: """
            Every option falls back to the environment variable named in its help, then to its default.
            Stops gracefully on SIGTERM or SIGINT: when something asked /readyz, it first drains (--drain: \
            /readyz answers 503, everything else still answers), then no new connections, in-flight requests \
            finish, the database is closed cleanly.
            """)

    @Option(help: "SQLite database file. Env PINSET_DB. Default ./data/pinset.sqlite.")
    var db: String?
    @Option(
        help:
            "Ed25519 signing key: a PKCS#8 PEM file (mode 0600) or a PKCS#11 URI such as 'pkcs11:token=pinset;object=signing-2026' (see --pkcs11-module). Env PINSET_KEY. Default ./data/signing-key.pem."
    )
    var key: String?
    @Option(
        help:
            "The next signing key, for a planned rotation (PROTOCOL §6.3): a PEM file or PKCS#11 URI like --key. A pushed trust document that delegates it and drops the current key switches to it and re-signs every document before it is answered; then restart with it as --key. Env PINSET_NEXT_KEY. Default none."
    )
    var nextKey: String?
    @OptionGroup(title: "Keys in hardware") var pkcs11: PKCS11Options
    @Flag(
        help:
            "Start even if the key on the PKCS#11 token is extractable or not sensitive (logs a warning). Default: refuse."
    )
    var allowExtractableKey = false
    @Option(help: "TCP port (0 picks a free one). Env PINSET_PORT. Default 8080.")
    var port: Int?
    @Option(help: "Size of the HTTP thread pool. Env PINSET_THREADS. Default 2.")
    var threads: Int?
    @Option(help: "Address to listen on (IPv4 or IPv6). Env PINSET_BIND. Default 127.0.0.1.")
    var bind: String?
    @Option(
        help:
            "Serve /admin, /console and /metrics on a listener of their own at this port (0 picks a free one); the --port listener then serves only the public routes. Env PINSET_ADMIN_PORT. Default none: one listener serves both."
    )
    var adminPort: Int?
    @Option(
        help:
            "Address of the admin listener (IPv4 or IPv6); giving it alone puts the admin listener on port 8081. Env PINSET_ADMIN_BIND. Default 127.0.0.1."
    )
    var adminBind: String?
    @Option(
        help:
            "A reverse proxy whose X-Forwarded-For is believed for /reports' rate limits (IPv4 or IPv6 address). Repeatable. Env PINSET_TRUSTED_PROXIES (comma-separated). Default none: the header is ignored."
    )
    var trustedProxy: [String] = []
    @Option(
        help:
            "Most bytes one pin failure report may store (host name, chain, known pins); larger ones get 413. Env PINSET_REPORT_MAX_BYTES. Default 16384."
    )
    var reportMaxBytes: Int?
    @Option(
        help:
            "Most bytes all stored pin failure reports may take, half for pinned hosts and half for other names. Env PINSET_REPORTS_MAX_TOTAL_BYTES. Default 67108864 (64 MiB)."
    )
    var reportsMaxTotalBytes: Int?
    @Option(
        help:
            "Most hosts whose built 200 and 304 answers are kept in memory (about 1.1 KB each); once full, a host asked for twice more soon replaces one not asked for lately, and other answers are built for their request (0 = none). Env PINSET_RESPONSE_CACHE. Default 100000."
    )
    var responseCache: Int?
    @Option(help: "Lifetime of a signed document (e.g. 14d). Env PINSET_LIFETIME. Default 14d.")
    var lifetime: String?
    @Option(
        help: "Refresh interval clients are told in Cache-Control max-age (e.g. 1h). Env PINSET_REFRESH. Default 1h.")
    var refresh: String?
    @Option(help: "Most simultaneous connections. Env PINSET_CONNECTION_LIMIT. Default 1024.")
    var connectionLimit: Int?
    @Option(
        help: "Most simultaneous connections from one address (0 = no limit). Env PINSET_PER_ADDRESS_LIMIT. Default 0.")
    var perAddressLimit: Int?
    @Option(help: "Seconds before an idle connection is closed. Env PINSET_IDLE_TIMEOUT. Default 15.")
    var idleTimeout: Int?
    @Option(
        help:
            "Seconds a connection gets for each request, headers to answer (closes slowloris clients; 0 = off). Env PINSET_REQUEST_TIMEOUT. Default 30."
    )
    var requestTimeout: Int?
    @Option(help: "Default reportUri for sets that give none. Env PINSET_REPORT_URI. Default none.")
    var reportUri: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error. Env PINSET_LOG_LEVEL. Default info.")
    var logLevel: String?
    @Option(
        help:
            "Log format on standard error: text (for a terminal) or json (one object per line: time, level, message, logger, then the metadata as fields; for Loki, Elasticsearch, Cloud Logging). Env PINSET_LOG_FORMAT. Default text."
    )
    var logFormat: String?
    @Option(
        help:
            "Seconds the server keeps answering after SIGTERM with /readyz answering 503, so that load balancers routing by it stop sending requests first; then it stops accepting. Only when something asked /readyz since start-up (nothing routes by it otherwise); a second signal ends it. Env PINSET_DRAIN. Default 5."
    )
    var drain: Double?
    @Option(
        help:
            "An offline root public key (Ed25519 PEM) the first trust document must be signed by (PROTOCOL §6). Repeatable. Env PINSET_ROOT_PUB (comma-separated files). Default none."
    )
    var rootPub: [String] = []
    @Option(
        help: "How many distinct root keys must sign the first trust document. Env PINSET_ROOT_THRESHOLD. Default 1.")
    var rootThreshold: Int?
    @Option(
        help:
            "Keep a transparency log (PROTOCOL §7) signed with this Ed25519 log key: a PKCS#8 PEM file, mode 0600, not the signing key. Every document is then logged in the transaction that stores it and served only once a signed checkpoint includes it, with its proof at /pins/{host}/proof; the log is served under /log/. Env PINSET_LOG_KEY. Default: no log."
    )
    var logKey: String?
    @Option(
        help:
            "The log's name: the checkpoint origin line and the log key's name, e.g. pins.example.com/log (clients' policies and witnesses know the log by it; choose it once). Env PINSET_LOG_ORIGIN. Default pinset/log."
    )
    var logOrigin: String?
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "A witness to ask for cosignatures: its URL (requests go to URL/add-checkpoint) and its vkey. Repeatable. Writes are answered once the checkpoint is signed, not after the witnesses (a round, at most one a second, would add ~10 ms to every write): cosignatures are added to the proofs as they arrive, and a witness that was down is asked again every --witness-retry. Env PINSET_WITNESSES (URL VKEY pairs separated by blanks).",
            valueName: "URL VKEY"))
    var witness: [String] = []
    @Option(help: "Seconds a witness round waits for answers. Env PINSET_WITNESS_DEADLINE. Default 5.")
    var witnessDeadline: Int?
    @Option(
        help:
            "Seconds between rounds while a witness has not cosigned the latest checkpoint. Env PINSET_WITNESS_RETRY. Default 10."
    )
    var witnessRetry: Int?
    @Flag(
        help:
            "Development start (what `make run` uses): create the signing key if it is missing, and print a new admin token if none exists."
    )
    var dev = false
    @OptionGroup(title: "Lock-out protection") var probes: ProbeOptions
    @Flag(
        help:
            "Start even when the database fails SQLite's quick_check or stored documents do not match their hashes: serve the intact hosts and answer 503 for the damaged ones. Default: refuse to start, naming the hosts (restore a backup; `pinset backup --check FILE` checks one); quick_check runs on after the server listens, writes waiting for it, and a failure stops the server before any write."
    )
    var serveDamaged = false
    @Flag(
        help:
            "Trust the clock even when it is more than the document lifetime ahead of the newest stored document (the server was stopped that long): every document is then re-signed with its dates. Default: refuse to start, since a clock far ahead would date every document where clients refuse it once the clock is right."
    )
    var trustClock = false

    func run() async throws {
        let level = Environment.string(logLevel, "PINSET_LOG_LEVEL", default: "info")
        guard let logLevel = Logger.Level(rawValue: level) else { throw CLIError("unknown log level \"\(level)\"") }
        let formatName = Environment.string(logFormat, "PINSET_LOG_FORMAT", default: "text")
        guard let format = LogFormat(rawValue: formatName) else {
            throw CLIError(
                "unknown log format \"\(formatName.prefix(40))\": give text or json (--log-format, PINSET_LOG_FORMAT)")
        }
        let drainText = drain.map { String($0) } ?? Environment.string(nil, "PINSET_DRAIN", default: "5")
        guard let drainSeconds = Double(drainText), (0...600).contains(drainSeconds) else {
            throw CLIError(
                "--drain must be between 0 and 600 seconds (env PINSET_DRAIN), not \"\(drainText.prefix(40))\"")
        }
        format.bootstrap(level: logLevel) { EscapingLogHandler($0) }  // no forged lines
        let logger = Logger(label: "pinset")
        let configuration = try makeConfiguration()

        // Catch SIGTERM and SIGINT before anything announces the server: a signal sent as soon as the banner is
        // read must stop it gracefully, never be lost.
        let termination = StopSignal()
        let app: PinSetServerApp
        do {
            app = try PinSetServerApp(configuration: configuration, logger: logger)
        } catch {
            throw CLIError("cannot start: \(error)")
        }
        let host =
            configuration.http.bindAddress.contains(":")
            ? "[\(configuration.http.bindAddress)]" : configuration.http.bindAddress
        if format == .json {
            // Every line the server writes is a JSON object: the banner is a log line (only a --dev token, shown
            // once for a developer's terminal, is printed as text).
            logger.info("pinset is serving", metadata: banner(configuration, url: "http://\(host):\(app.port)", app))
        } else {
            print("pinset is serving on http://\(host):\(app.port)")
            if let adminPort = app.adminPort, let admin = configuration.adminHTTP {
                let adminHost = admin.bindAddress.contains(":") ? "[\(admin.bindAddress)]" : admin.bindAddress
                print("  admin API, console and metrics on http://\(adminHost):\(adminPort)")
            }
            print("  database: \(configuration.databasePath)")
            print("  signing key: \(configuration.keyPath)")
            if let next = configuration.nextKeyPath { print("  next signing key: \(next)") }
            if let log = configuration.log {
                print("  transparency log: \(log.origin), \(log.witnesses.count) witness(es)")
                print("  log vkey: \(app.logVerifierKey ?? "")")
            }
            if !configuration.rootKeys.isEmpty {
                print("  root keys: \(configuration.rootKeys.count), threshold \(configuration.rootThreshold)")
            }
        }
        if dev, try app.service.listTokens().allSatisfy({ $0.revokedAt != nil }) {
            let token = try app.service.createToken(name: "admin")
            print("  admin token (shown once; export it as PINSET_TOKEN):")
            print(token)
        }
        fflush(nil)
        logger.info("started", metadata: ["port": "\(app.port)", "threads": "\(configuration.http.threads)"])
        // Start-up's integrity check runs on after the server listens (writes wait for it): damage it finds stops
        // the server as a refused start would.
        app.whenStartupCheckFails { termination.stop() }

        await termination.wait()
        if let failure = app.startupFailure {
            app.shutdown(gracePeriod: 1)
            throw CLIError("cannot start: \(failure)")
        }
        if drainSeconds > 0, app.readiness.wasAsked {
            app.startDraining()
            logger.info(
                "draining before stopping: /readyz answers 503, everything else still answers",
                metadata: ["seconds": "\(drainSeconds)"])
            // Everything keeps answering; /readyz says 503. A second SIGTERM or SIGINT ends the drain.
            let end = Date().addingTimeInterval(drainSeconds)
            while Date() < end, termination.count < 2 { try? await Task.sleep(nanoseconds: 50_000_000) }
        }
        logger.info("stopping: finishing in-flight requests")
        app.shutdown()
        logger.info("stopped")
    }

    /// The text banner's facts as log metadata (`--log-format json`): paths and public keys, no secret.
    private func banner(_ configuration: PinSetServerConfiguration, url: String, _ app: PinSetServerApp)
        -> Logger.Metadata
    {
        var metadata: Logger.Metadata = [
            "url": "\(url)", "database": "\(configuration.databasePath)", "signingKey": "\(configuration.keyPath)",
        ]
        if let next = configuration.nextKeyPath { metadata["nextSigningKey"] = "\(next)" }
        if let adminPort = app.adminPort, let admin = configuration.adminHTTP {
            let adminHost = admin.bindAddress.contains(":") ? "[\(admin.bindAddress)]" : admin.bindAddress
            metadata["adminURL"] = "http://\(adminHost):\(adminPort)"
        }
        if let log = configuration.log {
            metadata["logOrigin"] = "\(log.origin)"
            metadata["logWitnesses"] = "\(log.witnesses.count)"
            metadata["logVKey"] = "\(app.logVerifierKey ?? "")"
        }
        if !configuration.rootKeys.isEmpty {
            metadata["rootKeys"] = "\(configuration.rootKeys.count)"
            metadata["rootThreshold"] = "\(configuration.rootThreshold)"
        }
        return metadata
    }

    private func makeConfiguration() throws -> PinSetServerConfiguration {
        var http = HTTPServerConfiguration()
        http.bindAddress = Environment.string(bind, "PINSET_BIND", default: "127.0.0.1")
        let port = try Environment.port(self.port)
        guard (0...65_535).contains(port) else { throw CLIError("port \(port) is not between 0 and 65535") }
        http.port = UInt16(port)
        http.threads = try Environment.int(threads, "PINSET_THREADS", default: 2)
        let range = HTTPServerConfiguration.threadRange
        guard range.contains(http.threads) else {
            throw CLIError("threads must be between \(range.lowerBound) and \(range.upperBound)")
        }
        http.connectionLimit = try Environment.int(connectionLimit, "PINSET_CONNECTION_LIMIT", default: 1024)
        http.perAddressConnectionLimit = try Environment.int(perAddressLimit, "PINSET_PER_ADDRESS_LIMIT", default: 0)
        http.idleTimeoutSeconds = try Environment.int(idleTimeout, "PINSET_IDLE_TIMEOUT", default: 15)
        http.requestTimeoutSeconds = try Environment.int(requestTimeout, "PINSET_REQUEST_TIMEOUT", default: 30)
        guard (0...86_400).contains(http.requestTimeoutSeconds) else {
            throw CLIError("request timeout must be between 0 and 86400 seconds")
        }
        var service = ServiceConfiguration()
        let lifetimeText = Environment.string(lifetime, "PINSET_LIFETIME", default: "14d")
        let refreshText = Environment.string(refresh, "PINSET_REFRESH", default: "1h")
        service.documentLifetime = try Environment.duration(lifetimeText, name: "lifetime")
        service.refreshInterval = try Environment.duration(refreshText, name: "refresh")
        guard service.refreshInterval < service.documentLifetime / 2 else {
            throw CLIError(
                "refresh \(refreshText) must be under half the lifetime \(lifetimeText), so clients always hold a document that has not expired: lower --refresh (env PINSET_REFRESH, default 1h) or raise --lifetime (env PINSET_LIFETIME, default 14d)"
            )
        }
        service.defaultReportURI = reportUri ?? Environment.value("PINSET_REPORT_URI")
        let rootFiles =
            rootPub.isEmpty
            ? Environment.string(nil, "PINSET_ROOT_PUB", default: "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty } : rootPub
        let rootKeys = try rootFiles.map { file in
            try RootKeyFiles.publicKey(file, option: "--root-pub").rawRepresentation
        }
        let threshold = try Environment.int(rootThreshold, "PINSET_ROOT_THRESHOLD", default: 1)
        guard rootKeys.isEmpty || (1...Set(rootKeys).count).contains(threshold) else {
            throw CLIError("root threshold \(threshold) must be between 1 and the number of distinct --root-pub keys")
        }
        service.probes = try probes.configuration()
        let log = try logConfiguration()
        var configuration = PinSetServerConfiguration(
            databasePath: Environment.databasePath(db),
            keyPath: Environment.keyPath(key),
            createKeyIfMissing: dev, http: http, service: service, reports: try reportConfiguration(),
            rootKeys: rootKeys, rootThreshold: threshold,
            pkcs11: pkcs11.settings(allowExtractableKey: allowExtractableKey), log: log)
        configuration.adminHTTP = try adminConfiguration(http)
        configuration.nextKeyPath = Environment.nextKeyPath(nextKey)
        configuration.serveDamaged = serveDamaged
        configuration.service.trustClock = trustClock
        configuration.responseCache = try Environment.int(
            responseCache, "PINSET_RESPONSE_CACHE", default: PinSetServerConfiguration.defaultResponseCache)
        let cacheRange = PinSetServerConfiguration.responseCacheRange
        guard cacheRange.contains(configuration.responseCache) else {
            throw CLIError("response cache must be between \(cacheRange.lowerBound) and \(cacheRange.upperBound) hosts")
        }
        return configuration
    }

    /// `--admin-port` and `--admin-bind`: the admin listener, with the public one's limits; `nil` without either.
    private func adminConfiguration(_ http: HTTPServerConfiguration) throws -> HTTPServerConfiguration? {
        let bindText = adminBind ?? Environment.value("PINSET_ADMIN_BIND")
        let portValue =
            try adminPort
            ?? Environment.value("PINSET_ADMIN_PORT").map { text in
                guard let number = Int(text) else { throw CLIError("PINSET_ADMIN_PORT=\(text) is not a whole number") }
                return number
            }
        guard bindText != nil || portValue != nil else { return nil }
        let port = portValue ?? 8081
        guard (0...65_535).contains(port) else { throw CLIError("admin port \(port) is not between 0 and 65535") }
        var admin = http
        admin.bindAddress = bindText ?? "127.0.0.1"
        admin.port = UInt16(port)
        if admin.bindAddress == http.bindAddress, admin.port == http.port, port != 0 {
            throw CLIError(
                "--admin-port \(port) is the public listener's port: give the admin listener a port of its own")
        }
        return admin
    }

    /// The limits of `POST /reports`: `--trusted-proxy`, `--report-max-bytes`, `--reports-max-total-bytes`.
    private func reportConfiguration() throws -> ReportConfiguration {
        var reports = ReportConfiguration()
        let proxies =
            trustedProxy.isEmpty
            ? Environment.string(nil, "PINSET_TRUSTED_PROXIES", default: "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty } : trustedProxy
        for proxy in proxies where !ReportConfiguration.isAddress(proxy) {
            throw CLIError("--trusted-proxy \(proxy) is not an IPv4 or IPv6 address")
        }
        reports.trustedProxies = proxies
        reports.maxReportBytes = try Environment.int(
            reportMaxBytes, "PINSET_REPORT_MAX_BYTES", default: reports.maxReportBytes)
        reports.maxTotalBytes = try Environment.int(
            reportsMaxTotalBytes, "PINSET_REPORTS_MAX_TOTAL_BYTES", default: reports.maxTotalBytes)
        guard (1_024...65_536).contains(reports.maxReportBytes), reports.maxTotalBytes >= 2 * reports.maxReportBytes
        else {
            throw CLIError(
                "--report-max-bytes must be 1024 to 65536, and --reports-max-total-bytes at least twice it")
        }
        return reports
    }

    /// `--log-key`, `--log-origin` and the witnesses; `nil` without a log key.
    private func logConfiguration() throws -> LogConfiguration? {
        let words = Environment.witnesses(witness)
        guard let keyPath = Environment.logKeyPath(logKey) else {
            guard words.isEmpty else { throw CLIError("--witness needs a transparency log: give --log-key too") }
            return nil
        }
        guard words.count % 2 == 0 else {
            throw CLIError("--witness takes two values, the witness's URL and its vkey: --witness URL VKEY")
        }
        let crypto = OpenSSLTrustCrypto()
        var witnesses: [WitnessEndpoint] = []
        for pair in stride(from: 0, to: words.count, by: 2) {
            guard let url = URL(string: words[pair]), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else { throw CLIError("--witness \(words[pair]): not an http(s) URL") }
            do {
                let key = try VerifierKey(parsing: words[pair + 1], crypto: crypto)
                guard key.type == .cosignature else {
                    throw CLIError("--witness \(words[pair]): the vkey is not a cosignature key (type 0x04)")
                }
                witnesses.append(WitnessEndpoint(url: url, key: key))
            } catch let error as LogError {
                throw CLIError("--witness \(words[pair]) \(words[pair + 1]): \(error.detail)")
            }
        }
        let deadline = try Environment.int(witnessDeadline, "PINSET_WITNESS_DEADLINE", default: 5)
        let retry = try Environment.int(witnessRetry, "PINSET_WITNESS_RETRY", default: 10)
        guard (1...300).contains(deadline), (1...86_400).contains(retry) else {
            throw CLIError("--witness-deadline must be 1 to 300 seconds and --witness-retry 1 to 86400")
        }
        return LogConfiguration(
            keyPath: keyPath, origin: Environment.logOrigin(logOrigin), witnesses: witnesses,
            witnessDeadline: TimeInterval(deadline), witnessRetryInterval: TimeInterval(retry))
    }

    /// Suspends until SIGTERM or SIGINT arrives.
}
