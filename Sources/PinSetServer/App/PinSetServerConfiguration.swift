import Foundation
import MicroHTTPD
import PinSetLogServer
import PinSetSigning
import PinSetStorage

/// Everything `pinset serve` can be told. Every field has a default; reading flags and environment
/// variables into it is the command line's job.
package struct PinSetServerConfiguration: Sendable {
    /// The SQLite database file. Default `./data/pinset.sqlite`.
    package var databasePath: String
    /// The Ed25519 signing key: a PKCS#8 PEM file, or a PKCS#11 URI (`pkcs11:token=pinset;object=signing-2026`)
    /// for a key that stays on a token (see ``pkcs11``). Default `./data/signing-key.pem`.
    /// - Warning: the server refuses a key file that group or others can read.
    package var keyPath: String
    /// The next signing key (`--next-key`, PROTOCOL §6.3): a PEM file or PKCS#11 URI like ``keyPath``. A trust
    /// document that delegates it and drops the current key makes it active. Default `nil`: no planned rotation.
    package var nextKeyPath: String? = nil
    /// The module and PIN for a ``keyPath`` that is a PKCS#11 URI. Default: no module, no PIN.
    package var pkcs11: PKCS11Settings
    /// Generate the key file (mode 0600) when it does not exist. Default `false`: production keys are
    /// provisioned, never made up by the server.
    package var createKeyIfMissing: Bool
    /// Listening socket, thread pool and connection limits.
    package var http: HTTPServerConfiguration
    /// The admin listener (`--admin-bind`, `--admin-port`; issue 40): when set, `/admin`, `/console` and
    /// `/metrics` are served on it only, and ``http`` serves the public routes only (`/pins`, `/keys`, `/trust`,
    /// `/log`, `/reports`, `/healthz`). Default `nil`: one listener serves both, as before.
    /// - Warning: the admin API speaks plain HTTP: keep its listener on loopback or a private network, behind a
    ///   TLS terminator, never on the address clients reach.
    package var adminHTTP: HTTPServerConfiguration? = nil
    /// The most hosts whose built `200` and `304` are kept in memory: about 1.1 KB per host once both were asked
    /// for. Once full, a host asked for twice more soon replaces one not asked for lately, and other hosts'
    /// answers are built for their request (``ReadCache/ResourceIndex``); `0` builds every answer for its
    /// request. Default ``defaultResponseCache`` (100,000).
    package var responseCache: Int = defaultResponseCache
    /// The default of ``responseCache``: a 100,000-host server keeps every host's answers, and a million hosts
    /// stay within 1 KB of memory per host.
    package static let defaultResponseCache = DocumentIndex.defaultResponseCapacity
    /// The values ``responseCache`` accepts.
    package static let responseCacheRange = 0...100_000_000
    /// Document lifetime, refresh interval and re-signing.
    package var service: ServiceConfiguration
    /// Retention and rate limits of `POST /reports`.
    package var reports: ReportConfiguration
    /// How often the background re-signer looks for documents due. Default 60 seconds.
    package var resignCheckInterval: TimeInterval
    /// The offline root public keys (raw 32-byte Ed25519) the first trust document must be signed by
    /// (PROTOCOL §6.3; `--root-pub`). Default none: the server works as without §6.
    package var rootKeys: [[UInt8]]
    /// How many distinct ``rootKeys`` must sign the first trust document (`--root-threshold`). Default 1.
    package var rootThreshold: Int
    /// The transparency log (PROTOCOL §7): its key, origin and witnesses. Default `nil`: no log, no proofs.
    package var log: LogConfiguration?
    /// Start even when SQLite's `quick_check` fails or stored documents do not match their hashes
    /// (`--serve-damaged`): the sound documents are served and the damaged hosts answer `503 document-damaged`.
    /// Default `false`: such a start is refused, naming the hosts (a `quick_check` failure, found after the server
    /// listens, stops it before any write: ``StartupIntegrity``).
    /// - Warning: a damaged database may hold other damage no check sees; restore a backup as soon as possible.
    package var serveDamaged = false
    /// Seconds between checks of the database's files (replaced or deleted under the server), the WAL checkpoint
    /// and the descriptors in use. Default 2 seconds.
    package var storageWatchInterval: TimeInterval = 2

    /// Creates a configuration; every parameter has the default documented on its property.
    package init(
        databasePath: String = PinDatabase.defaultPath, keyPath: String = SignerLoader.defaultKeyPath,
        createKeyIfMissing: Bool = false, http: HTTPServerConfiguration = HTTPServerConfiguration(),
        service: ServiceConfiguration = ServiceConfiguration(), reports: ReportConfiguration = ReportConfiguration(),
        resignCheckInterval: TimeInterval = 60, rootKeys: [[UInt8]] = [], rootThreshold: Int = 1,
        pkcs11: PKCS11Settings = PKCS11Settings(), log: LogConfiguration? = nil
    ) {
        self.log = log
        self.pkcs11 = pkcs11
        self.rootKeys = rootKeys
        self.rootThreshold = rootThreshold
        self.reports = reports
        self.databasePath = databasePath
        self.keyPath = keyPath
        self.createKeyIfMissing = createKeyIfMissing
        self.http = http
        self.service = service
        self.resignCheckInterval = resignCheckInterval
    }
}
