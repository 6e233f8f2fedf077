import Foundation

extension PinningClient {
    /// Everything the client is given. Every field but ``server``, ``hosts`` and the keys has a default.
    public struct Configuration: Sendable {
        /// The pin server's base URL, e.g. `https://pins.example.com`.
        public var server: URL
        /// The hosts the app pins (their sets are fetched; without one they are refused).
        public var hosts: [String]
        /// The server's Ed25519 signing keys, shipped in the app. Default none (then ``rootKeys`` are needed).
        public var trustedKeys: [TrustedKey]
        /// Offline root keys (PROTOCOL §6) instead of, or beside, signing keys. Default none.
        public var rootKeys: [TrustedKey]
        /// How many root keys must sign trust version 1. Default 1.
        public var rootKeyThreshold: Int
        /// The folder `pinset export --out` wrote, shipped in the bundle (a folder reference), installed at
        /// launch: pins from the very first launch. Default `nil`.
        public var bundledExport: URL?
        /// Where accepted documents are persisted. Default ``PinningClient/defaultStorageDirectory``
        /// (Application Support/pinset); `nil` keeps them in memory (no rollback protection across launches).
        public var storageDirectory: URL?
        /// Policy: unpinned hosts, missing and stale sets, skew, transparency log. Default `PinningOptions()`.
        public var options: PinningOptions
        /// Polling interval when the server sends no `max-age`. Default 3600 s.
        public var defaultRefreshInterval: TimeInterval
        /// Cap of the retry delay after errors. Default 900 s (a foreground or a refusal refreshes sooner).
        public var maximumBackoff: TimeInterval
        /// The least time between two refreshes of a host triggered by the foreground, the network coming back
        /// or a refusal for a missing set. Default 30 s.
        public var triggeredRefreshInterval: TimeInterval
        /// Whether pin failures are posted as TrustKit reports (to the set's `reportUri`, else the pin server's
        /// `/reports`). Default `true`.
        public var reportsPinFailures: Bool

        /// Creates a configuration; every field has the default described on it.
        public init(
            server: URL, hosts: [String], trustedKeys: [TrustedKey] = [], rootKeys: [TrustedKey] = [],
            rootKeyThreshold: Int = 1, bundledExport: URL? = nil,
            storageDirectory: URL? = PinningClient.defaultStorageDirectory, options: PinningOptions = PinningOptions(),
            defaultRefreshInterval: TimeInterval = 3600, maximumBackoff: TimeInterval = 900,
            triggeredRefreshInterval: TimeInterval = 30, reportsPinFailures: Bool = true
        ) {
            self.server = server
            self.hosts = hosts
            self.trustedKeys = trustedKeys
            self.rootKeys = rootKeys
            self.rootKeyThreshold = rootKeyThreshold
            self.bundledExport = bundledExport
            self.storageDirectory = storageDirectory
            self.options = options
            self.defaultRefreshInterval = defaultRefreshInterval
            self.maximumBackoff = maximumBackoff
            self.triggeredRefreshInterval = triggeredRefreshInterval
            self.reportsPinFailures = reportsPinFailures
        }
    }

    /// Why a configuration cannot make a client: its `code` says what is wrong, its description (the
    /// detail) what to fix.
    public typealias ConfigurationError = CodedError<ConfigurationErrorCode>

    /// What is wrong with a configuration (``ConfigurationError``'s code).
    public enum ConfigurationErrorCode: String, ErrorCode {
        /// Neither signing keys nor root keys: no document could ever be accepted.
        case noKeys
        /// The root keys or their threshold are refused (``TrustRejection``).
        case badRootKeys
        /// A host is not a DNS name.
        case badHost
    }

    /// `Application Support/pinset` of the user's domain (on Linux, `~/.local/share/pinset`).
    public static var defaultStorageDirectory: URL? {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?
            .appendingPathComponent("pinset", isDirectory: true)
    }
}

extension CodedError where CodeType == PinningClient.ConfigurationErrorCode {
    /// A configuration error of kind `code` saying what to fix.
    init(code: Code, description: String) { self.init(code, description) }
}
