import Foundation
import Logging
import MicroHTTPD
import OpenSSLCrypto
import PKCS11
import PinSetCore
import PinSetSigning

/// A running pin server: the database, the signing key, the in-memory snapshot, the HTTP listener and the
/// background re-signer, started together and stopped together.
public final class PinSetServerApp: Sendable {
    /// The service behind the admin API, for commands that run in-process (tokens, tests).
    public let service: PinSetService
    /// The trust documents (PROTOCOL §6.3).
    public let trust: TrustService
    private let store: PinDatabase
    private let http: HTTPServer
    private let snapshot: DocumentIndex
    private let resigner: PeriodicWorker
    private let monitor: HostMonitor?
    private let logger: Logger

    /// Opens the database, loads the key and the published documents (without re-signing them), and
    /// starts listening.
    ///
    /// - Throws: a readable error when the key file is missing, unsafe (readable by group or others) or
    ///   not an Ed25519 key, when a key on a PKCS#11 token cannot be used (``SignerLoader``), when the database
    ///   cannot be opened, or when the address cannot be bound.
    public init(configuration: PinSetServerConfiguration, logger: Logger = Logger(label: "pinset")) throws {
        self.logger = logger
        let (key, store) = try Self.openKeyAndDatabase(configuration, logger: logger)
        let snapshot = DocumentIndex(maxAge: Int(configuration.service.refreshInterval))
        let metrics = ServerMetrics()
        let service = try PinSetService(
            store: store, signingKey: key, configuration: configuration.service, logger: logger,
            publish: { snapshot.publish(CollectionOfOne($0)) })
        let started = Date()
        let hosts = try snapshot.load(from: store)
        logger.info(
            "loaded published documents",
            metadata: [
                "hosts": "\(hosts)", "ms": "\(Int(Date().timeIntervalSince(started) * 1000))",
                "kid": "\(key.kid)",
            ])
        let reports = PinReportService(store: store, service: service, configuration: configuration.reports)
        let trust = try TrustService(
            store: store, rootKeys: configuration.rootKeys, rootThreshold: configuration.rootThreshold,
            signingKid: key.kid, refreshInterval: configuration.service.refreshInterval)
        Self.warnIfNotDelegated(trust, kid: key.kid, logger: logger)
        self.trust = trust
        let router = PinSetRouter(
            snapshot: snapshot, service: service, reports: reports, trust: trust, store: store, metrics: metrics,
            logger: logger)
        self.http = try HTTPServer(configuration: configuration.http, handler: router)
        self.store = store
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
                let count = try service.resignDue()
                if count > 0 {
                    metrics.resigned(count)
                    logger.info("re-signed documents before expiry", metadata: ["count": "\(count)"])
                }
            } catch {
                metrics.signingError()
                logger.error("re-signing failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The bound port (useful with port 0).
    public var port: UInt16 { http.port }

    /// Stops accepting connections, lets in-flight requests finish (up to `gracePeriod` seconds), stops the
    /// re-signer and closes the database cleanly.
    public func shutdown(gracePeriod: Double = 10) {
        resigner.stop()
        monitor?.stop()
        http.shutdown(gracePeriodSeconds: gracePeriod)
        do {
            try store.close()
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
    }

    /// PROTOCOL §6.3: a server whose key the newest trust document does not list still starts (that is how a
    /// leaked key is replaced), but says so.
    private static func warnIfNotDelegated(_ trust: TrustService, kid: String, logger: Logger) {
        switch try? trust.delegation() {
        case .notDelegated:
            logger.warning(
                "the newest trust document does not list this server's signing key: clients that rely on root keys refuse its documents until a trust document naming it is pushed (PUT /admin/trust)",
                metadata: ["kid": "\(kid)"])
        case .noTrustDocument:
            logger.warning(
                "root keys are configured but no trust document is stored: clients that rely on root keys accept no document until one is pushed (pinset trust push)",
                metadata: ["kid": "\(kid)"])
        default:
            break
        }
    }

    /// The key is read before the database is opened, so a bad key never creates a database file. `--dev`
    /// makes a missing key only for a database that has never signed anything: with a mistyped `--key` path it
    /// would otherwise mint a new key and re-sign every document with it.
    private static func openKeyAndDatabase(_ configuration: PinSetServerConfiguration, logger: Logger) throws
        -> (any DocumentSigner, PinDatabase)
    {
        guard configuration.createKeyIfMissing, !PKCS11URI.isURI(configuration.keyPath),
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
