import Foundation
import Locking
import Logging
import MicroHTTPD
import OpenSSLCrypto
import PinSetCore
import PinSetLogServer
import PinSetOpenSSL
import PinSetSigning
import PinSetStorage
import ReadCache
import TransparencyLog

/// A running pin server: the database, the signing key, the in-memory snapshot, the HTTP listener and the
/// background re-signer, started together and stopped together.
package final class PinSetServerApp: Sendable {
    /// The service behind the admin API, for commands that run in-process (tokens, tests).
    package let service: PinSetService
    /// The trust documents (PROTOCOL §6.3).
    package let trust: TrustService
    /// What `GET /readyz` checks: `index`, `signer`, `storage`, `integrity` (``StartupIntegrity``), `log` (with a
    /// transparency log) and `draining`. Another subsystem adds its condition here (``Readiness/add(_:_:)``).
    package let readiness: Readiness
    private let store: PinDatabase
    private let http: HTTPServer
    /// The admin listener, with ``PinSetServerConfiguration/adminHTTP``.
    private let adminHTTP: HTTPServer?
    private let snapshot: DocumentIndex
    private let resigner: PeriodicWorker
    private let monitor: HostMonitor?
    private let logPublisher: LogPublisher?
    private let witnesses: WitnessWorker?
    private let storageWatch: StorageWatch
    private let logger: Logger
    /// Start-up's `PRAGMA quick_check`, which runs on after the server listens (``StartupIntegrity``).
    private let integrity: StartupIntegrity

    /// The storage faults in force (a database file replaced under the server, a full disk, damaged hosts), for
    /// readiness probes: ``StorageHealth/problem`` is `nil` while the storage is sound.
    package var storageHealth: StorageHealth { store.health }

    /// Opens the database, loads the key and the published documents (without re-signing them), and
    /// starts listening.
    ///
    /// - Throws: a readable error when the key file is missing, unsafe (readable by others or a foreign group) or
    ///   not an Ed25519 key, when a key on a PKCS#11 token cannot be used (``SignerLoader``), when the database
    ///   cannot be opened, or when the address cannot be bound.
    package init(configuration: PinSetServerConfiguration, logger: Logger = Logger(label: "pinset")) throws {
        self.logger = logger
        let (current, store) = try Self.openKeyAndDatabase(configuration, logger: logger)
        let rotating = try Self.openNextKey(configuration, current: current, logger: logger)
        let key: any DocumentSigner = rotating ?? current
        let snapshot = DocumentIndex(
            maxAge: Int(configuration.service.refreshInterval), responseCapacity: configuration.responseCache)
        let metrics = ServerMetrics()
        let logPublisher = try configuration.log.map { log in
            try Self.openLog(
                log, store: store, signingKey: key.publicKey, maxAge: Int(configuration.service.refreshInterval),
                logger: logger, documents: { snapshot.resource($0) })
        }
        let service = try PinSetService(
            store: store, signingKey: key, configuration: configuration.service, logger: logger, log: logPublisher,
            publish: { snapshot.publish(CollectionOfOne($0)) })
        let readiness = Readiness()
        let indexLoaded = Locked(false)
        // Documents are loaded before the listener starts, so today this holds whenever /readyz can be asked; it
        // is a condition so that a load in the background could never be mistaken for an empty index.
        readiness.add("index") { indexLoaded.withLock { $0 } ? nil : "the published documents are still loading" }
        let signerCheck = SignerCheck(signer: key)
        readiness.add("signer") { signerCheck.check() }
        // A replaced or deleted database file, or a full disk, refuses writes (issue 41): not ready either. Damaged
        // hosts served with --serve-damaged are the operator's choice and leave the pod ready.
        readiness.add("storage") {
            let problems = store.health.current.filter { $0.kind != .damagedHosts }
            return problems.isEmpty ? nil : problems.map(\.description).joined(separator: "; ")
        }
        let started = Date()
        // SQLite's quick_check reads the whole file (1.5 s of CPU at a million hosts with a log): on a thread of its
        // own, after the load, and on after the server listens. Reads are answered meanwhile from the documents
        // loaded, each checked against its hash; writes wait for it, `/readyz` says 503 `integrity` until it
        // passes, and damage it finds stops the server as at start (StartupIntegrity).
        let loadCPU = QuickCheck.threadCPUSeconds()
        let checks = !QuickCheck.measurementOnlyChecksOff
        if !checks {
            logger.warning(
                "PINSET_MEASURE_STARTUP_CHECKS=off: the start-up checks are off (for benchmarks only); a damaged database or document will not be noticed and may be served"
            )
        }
        store.holdWrites()
        // The log's hashes are read beside the documents too (read-only); its load below then reads what is new.
        let logPreload = logPublisher.map { Self.startLogPreload($0.log, store: store, logger: logger) }
        let loaded = try snapshot.load(from: store, checkingHashes: checks)
        let loadedAt = Date()
        let loadCPUSeconds = QuickCheck.threadCPUSeconds() - loadCPU
        indexLoaded.withLock { $0 = true }
        // Started once the documents are loaded: beside the load it slowed it by a third at a million hosts (two
        // readers of the whole file on two cores), even at the lowest priority.
        let integrity = StartupIntegrity(
            check: checks ? Self.startQuickCheck(store) : QuickCheck.skipped(), store: store,
            databasePath: configuration.databasePath, serveDamaged: configuration.serveDamaged, logger: logger)
        self.integrity = integrity
        readiness.add("integrity") { integrity.notPassed }
        logger.info(
            "loaded published documents",
            metadata: [
                "hosts": "\(loaded.hosts)", "ms": "\(Int(Date().timeIntervalSince(started) * 1000))",
                "loadMs": "\(Int(loadedAt.timeIntervalSince(started) * 1000))",
                "hashCheckMs": "\(loaded.checkMilliseconds)", "loadCpuMs": "\(Int(loadCPUSeconds * 1000))",
                "storeCpuMs": "\(Int(loaded.storeCPUSeconds * 1000))", "kid": "\(key.kid)",
            ])
        try Self.refuseDamaged(loaded.damaged, store: store, configuration: configuration, logger: logger)
        if let refusal = try service.clockRefusalAtStart(newestIssuedAt: .some(loaded.newestIssuedAt)) {
            throw StartupError(code: .clockAhead, description: refusal)
        }
        let reports = PinReportService(
            store: store, service: service, configuration: configuration.reports, forks: logPublisher?.forks)
        let trust = try TrustService(
            store: store, rootKeys: configuration.rootKeys, rootThreshold: configuration.rootThreshold,
            signingKid: key.kid, refreshInterval: configuration.service.refreshInterval, log: logPublisher,
            rotation: rotating.map { (service, $0) })
        Self.warnIfNotDelegated(trust, kid: key.kid, logger: logger)
        self.trust = trust
        if let logPublisher {
            logPreload?.done.wait()
            let loadCPU = QuickCheck.threadCPUSeconds()
            let loaded = try logPublisher.load()
            logger.info(
                "loaded the transparency log",
                metadata: [
                    "origin": "\(logPublisher.log.origin)", "treeSize": "\(loaded.treeSize)",
                    "appended": "\(loaded.appended)", "proofs": "\(loaded.proofs)",
                    "preloadCpuMs": "\(Int((logPreload?.cpuSeconds.withLock { $0 } ?? 0) * 1000))",
                    "loadCpuMs": "\(Int((QuickCheck.threadCPUSeconds() - loadCPU) * 1000))",
                ])
            try logPublisher.forks.load()
            logPublisher.forks.alert(to: configuration.service.probes.alertWebhook)
            logPublisher.start()
            readiness.add("log") { logPublisher.behind() }
        }
        self.readiness = readiness
        self.logPublisher = logPublisher
        let witnesses = configuration.log.flatMap { log -> WitnessWorker? in
            guard let logPublisher, !log.witnesses.isEmpty else { return nil }
            return WitnessWorker(
                publisher: logPublisher, witnesses: log.witnesses, deadline: log.witnessDeadline,
                retryInterval: log.witnessRetryInterval, crypto: OpenSSLTrustCrypto(), logger: logger)
        }
        self.witnesses = witnesses
        func router(_ plane: Plane) -> PinSetRouter {
            PinSetRouter(
                snapshot: snapshot, service: service, reports: reports, trust: trust, store: store, metrics: metrics,
                logger: logger, log: logPublisher, witnesses: witnesses, readiness: readiness, plane: plane)
        }
        Descriptors.raiseAndCheck(connectionLimit: configuration.http.connectionLimit, logger: logger)
        // A failed accept (out of descriptors) is otherwise silent: connections are just never answered.
        func withErrorLog(_ configuration: HTTPServerConfiguration) -> HTTPServerConfiguration {
            var http = configuration
            if http.errorLog == nil {
                let limiter = LogLimiter()
                http.errorLog = { message in
                    if limiter.due(String(message.prefix(24))) {
                        logger.error("libmicrohttpd: \(message) (this message is logged at most once a minute)")
                    }
                }
            }
            return http
        }
        let adminHTTP = try configuration.adminHTTP.map {
            try HTTPServer(configuration: withErrorLog($0), handler: router(.adminOnly))
        }
        do {
            self.http = try HTTPServer(
                configuration: withErrorLog(configuration.http), handler: router(adminHTTP == nil ? .both : .publicOnly)
            )
        } catch {
            adminHTTP?.shutdown(gracePeriodSeconds: 0)
            throw error
        }
        self.adminHTTP = adminHTTP
        Self.moveToHugePages(snapshot, after: integrity, logger: logger)
        self.store = store
        store.watchContent()
        self.service = service
        self.snapshot = snapshot
        let probes = configuration.service.probes
        self.monitor = probes.monitorInterval.map { interval in
            HostMonitor(
                store: store, configuration: probes, interval: interval, logger: logger,
                onPass: { metrics.monitorPass($0) })
        }
        monitor?.start()
        // Re-signing is blocking SQLite and signing work: it runs on a thread of its own, never on Swift's
        // cooperative pool and never on the read path.
        self.resigner = PeriodicWorker(name: "pinset.resigner", interval: configuration.resignCheckInterval) {
            do {
                let count = try service.resignDue(keeping: trust.keysNotToReplace())
                if count > 0 {
                    metrics.resigned(count)
                    logger.info("re-signed documents before expiry", metadata: ["count": "\(count)"])
                }
            } catch {
                metrics.signingError()
                logger.error("re-signing failed", metadata: ["error": "\(error)"])
            }
        }
        trust.whenAccepted { [weak resigner] in resigner?.wakeUp() }
        self.storageWatch = StorageWatch(store: store, interval: configuration.storageWatchInterval, logger: logger)
    }

    /// Calls `body` once, on another thread, if start-up's integrity check finds the database damaged (without
    /// `--serve-damaged`) or cannot run: `pinset serve` then stops and exits with ``startupFailure``, as when the
    /// damage is found before listening. At once when it already has.
    package func whenStartupCheckFails(_ body: @escaping @Sendable () -> Void) {
        integrity.whenFailed(body)
    }

    /// Why the server must not go on (start-up's integrity check found damage), `nil` while it passed or runs.
    package var startupFailure: StartupError? { integrity.failure }

    /// The transparency log's vkey (`origin+keyid+base64`), `nil` without a log.
    package var logVerifierKey: String? { logPublisher?.log.verifierKey.description }

    /// The bound port (useful with port 0).
    package var port: UInt16 { http.port }

    /// Turns `/readyz` to `503` (`draining`) at once while everything keeps answering: call it on SIGTERM, wait
    /// the drain period, then ``shutdown(gracePeriod:)``.
    package func startDraining() {
        readiness.startDraining()
    }

    /// The admin listener's bound port; `nil` when one listener serves both planes.
    package var adminPort: UInt16? { adminHTTP?.port }

    /// Stops accepting connections, lets in-flight requests finish (up to `gracePeriod` seconds), stops the
    /// re-signer and closes the database cleanly.
    package func shutdown(gracePeriod: Double = 10) {
        storageWatch.stop()
        resigner.stop()
        monitor?.stop()
        http.shutdown(gracePeriodSeconds: gracePeriod)
        adminHTTP?.shutdown(gracePeriodSeconds: gracePeriod)
        witnesses?.stop()
        logPublisher?.stop()
        logPublisher?.forks.drain(seconds: 5)
        _ = integrity.wait()  // its reader connection must be done before the pool closes
        do {
            try store.close()
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
    }

    /// SQLite's `PRAGMA quick_check`, run on a thread of its own at a low CPU priority; ``QuickCheck/wait()`` gives
    /// its result. The load of the documents, which the server waits for before it listens, and then the requests go
    /// first: the check takes the CPU they leave (``StartupIntegrity``).
    private static func startQuickCheck(_ store: PinDatabase) -> QuickCheck {
        let check = QuickCheck()
        let thread = Thread {
            #if os(Linux)
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.quickCheckNice)  // this thread only
            #endif
            let started = Date()
            let startedCPU = QuickCheck.threadCPUSeconds()
            let result: Result<[String], ServiceError>
            do {
                result = .success(try store.quickCheck())
            } catch {
                result = .failure(error as? ServiceError ?? ServiceError(.storage, "the integrity check failed"))
            }
            check.finish(
                result, seconds: Date().timeIntervalSince(started),
                cpuSeconds: QuickCheck.threadCPUSeconds() - startedCPU)
        }
        thread.name = "pinset.quick-check"
        thread.start()
        return check
    }

    /// Reads the transparency log's hashes on a thread of its own (``LogState/preload(from:)``), beside the
    /// documents' load; `done` is signalled when it ends, `cpuSeconds` is then its thread's CPU (start-up's log
    /// line, for bench/scale.sh). A failure is only logged: the log's load then reads every entry itself, and
    /// reports what is wrong.
    private static func startLogPreload(_ log: LogState, store: PinDatabase, logger: Logger) -> (
        done: DispatchSemaphore, cpuSeconds: Locked<TimeInterval>
    ) {
        let done = DispatchSemaphore(value: 0)
        let cpuSeconds = Locked<TimeInterval>(0)
        let thread = Thread {
            let startedCPU = QuickCheck.threadCPUSeconds()
            defer {
                cpuSeconds.withLock { $0 = QuickCheck.threadCPUSeconds() - startedCPU }
                done.signal()
            }
            do {
                try store.readMapped { db in try log.preload(from: db) }
            } catch {
                logger.warning(
                    "reading the transparency log ahead failed; its load reads it again",
                    metadata: ["error": "\(error)"])
            }
        }
        thread.name = "pinset.log-preload"
        thread.start()
        return (done, cpuSeconds)
    }

    /// Refuses to start when stored documents do not match their hashes, naming the hosts, unless
    /// ``PinSetServerConfiguration/serveDamaged``: then they answer `503` and the fault is recorded.
    private static func refuseDamaged(
        _ damaged: [String], store: PinDatabase, configuration: PinSetServerConfiguration, logger: Logger
    ) throws {
        guard !damaged.isEmpty else { return }
        let names = damaged.prefix(20).joined(separator: ", ") + (damaged.count > 20 ? ", …" : "")
        guard configuration.serveDamaged else {
            throw StartupError(
                code: .damagedDatabase,
                description:
                    "\(damaged.count) stored document(s) do not match their hashes, so the database is damaged: \(names). Restore a backup (`pinset backup --check FILE` tells whether a backup is sound; see the README's restore runbook), or start with --serve-damaged to serve the other hosts and answer 503 for these"
            )
        }
        store.health.report(
            StorageProblem(
                .damagedHosts,
                "\(damaged.count) host(s) have a damaged stored document and answer 503 until written again: \(names)"))
        logger.critical(
            "damaged documents not served (--serve-damaged): they answer 503 until written again; restore a backup",
            metadata: ["count": "\(damaged.count)", "hosts": "\(names)"])
    }

    /// The nice value of start-up's quick_check thread (``startQuickCheck(_:)``): below the requests', above the
    /// huge pages' move (19), which waits for it anyway.
    private static let quickCheckNice: Int32 = 10

    /// Backs the loaded documents with huge pages (``DocumentIndex/adviseHugePages()``) on a thread of its own at
    /// the lowest priority, once, after the server listens and start-up's integrity check has ended: it copies
    /// memory for a few seconds at a million hosts, so it never runs on start-up's path or a request's. Only for
    /// 2,048 hosts or more (fewer documents fit in a few pages).
    private static func moveToHugePages(_ snapshot: DocumentIndex, after integrity: StartupIntegrity, logger: Logger) {
        guard snapshot.count >= 2_048 else { return }
        let thread = Thread {
            // After start-up's integrity check: beside it, both copying through memory, each took half as long again.
            _ = integrity.wait()
            #if os(Linux)
                // The lowest CPU priority for this thread only (Linux keeps a nice value per thread, and `0`
                // names the calling one): on a server with one core, requests always go first.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
            let started = Date()
            let (regions, collapsed) = snapshot.adviseHugePages()
            logger.info(
                "documents moved to huge pages",
                metadata: [
                    "regions": "\(regions)", "collapsed": "\(collapsed)",
                    "ms": "\(Int(Date().timeIntervalSince(started) * 1000))",
                ])
        }
        thread.name = "pinset.huge-pages"
        thread.start()
    }

    /// PROTOCOL §6.3: a server whose key the newest trust document does not list still starts (that is how a
    /// leaked key is replaced), but says so.
    private static func warnIfNotDelegated(_ trust: TrustService, kid: String, logger: Logger) {
        switch try? trust.delegation() {
        case .notDelegated:
            logger.warning(
                "the newest trust document does not list this server's signing key: clients that rely on root keys refuse its documents until a trust document naming it is pushed (PUT /admin/trust); after a planned rotation (--next-key), restart with the next key as --key",
                metadata: ["kid": "\(kid)"])
        case .noTrustDocument:
            logger.warning(
                "root keys are configured but no trust document is stored: clients that rely on root keys accept no document until one is pushed (pinset trust push)",
                metadata: ["kid": "\(kid)"])
        default:
            break
        }
    }

    /// `--next-key`, opened and checked like the current key, beside it; `nil` without one.
    private static func openNextKey(
        _ configuration: PinSetServerConfiguration, current: any DocumentSigner, logger: Logger
    ) throws -> RotatingSigner? {
        guard let path = configuration.nextKeyPath else { return nil }
        let next = try SignerLoader.open(path, pkcs11: configuration.pkcs11, logger: logger)
        guard next.kid != current.kid else {
            throw StartupError(
                code: .signingKeyUnusable,
                description: "--next-key is the signing key itself (kid \(next.kid)): give the key that replaces it")
        }
        if let log = configuration.log, let logKey = try? Ed25519SigningKey.load(pemFile: log.keyPath),
            logKey.publicKey == next.publicKey
        {
            throw StartupError(
                code: .logKeyUnusable,
                description:
                    "the log key must not be the next signing key (PROTOCOL §7.1): make one with `pinset keygen`")
        }
        logger.info(
            "next signing key ready: a trust document that delegates it and drops the current key switches to it",
            metadata: ["kid": "\(current.kid)", "nextKid": "\(next.kid)"])
        return RotatingSigner(current: current, next: next)
    }

    /// The key is read before the database is opened, so a bad key never creates a database file. `--dev`
    /// makes a missing key only for a database that has never signed anything: with a mistyped `--key` path it
    /// would otherwise mint a new key and re-sign every document with it.
    private static func openKeyAndDatabase(_ configuration: PinSetServerConfiguration, logger: Logger) throws
        -> (any DocumentSigner, PinDatabase)
    {
        guard configuration.createKeyIfMissing, !SignerLoader.isTokenURI(configuration.keyPath),
            !FileManager.default.fileExists(atPath: configuration.keyPath)
        else {
            let key = try SignerLoader.open(configuration.keyPath, pkcs11: configuration.pkcs11, logger: logger)
            return (key, try PinDatabase(path: configuration.databasePath, logger: logger))
        }
        let store = try PinDatabase(path: configuration.databasePath, logger: logger)
        let signers = try store.read { try SigningKeyTable.documentSigners($0) }
        guard signers.isEmpty else {
            try? store.close()
            throw StartupError.keyMissingForSignedDatabase(
                keyPath: configuration.keyPath, databasePath: configuration.databasePath, kids: signers)
        }
        return (try createKey(at: configuration.keyPath), store)
    }

    /// The log's state over the database, with the log key loaded (PROTOCOL §7.1).
    /// - Throws: ``StartupError`` when the log key cannot be used or the origin is not a valid key name.
    private static func openLog(
        _ configuration: LogConfiguration, store: PinDatabase, signingKey: [UInt8], maxAge: Int, logger: Logger,
        documents: @escaping @Sendable (String) -> CachedResource?
    ) throws -> LogPublisher {
        let crypto = OpenSSLTrustCrypto()
        let state: LogState
        do {
            let key = try Ed25519SigningKey.load(pemFile: configuration.keyPath)
            guard key.publicKey != signingKey else {
                throw StartupError(
                    code: .logKeyUnusable,
                    description:
                        "the log key must not be the document signing key (PROTOCOL §7.1): make one with `pinset keygen`"
                )
            }
            let signer = try NoteSigner(name: configuration.origin, type: .ed25519, key: key)
            state = try LogState(origin: configuration.origin, signer: signer, crypto: crypto)
        } catch let error as StartupError {
            throw error
        } catch {
            throw StartupError(
                code: .logKeyUnusable,
                description:
                    "the log key \(configuration.keyPath) cannot be used for origin \(configuration.origin): \(error)")
        }
        return LogPublisher(
            log: state, store: store, witnessCount: configuration.witnesses.count, maxAge: maxAge, crypto: crypto,
            logger: logger, documents: documents)
    }

    private static func createKey(at keyPath: String) throws -> Ed25519SigningKey {
        let directory = (keyPath as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try Ed25519SigningKey.generate().write(toNewFile: keyPath)
        return try Ed25519SigningKey.load(pemFile: keyPath)
    }
}
