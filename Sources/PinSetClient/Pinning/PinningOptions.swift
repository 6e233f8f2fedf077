import TransparencyLog

/// How a ``PinTrustManager`` treats hosts without pins, configured hosts without a set yet, and stale sets
/// (PROTOCOL §5), and whether documents must be in a transparency log (PROTOCOL §7.4).
public struct PinningOptions: Sendable, Hashable {
    /// What to do with a host that no set covers.
    public enum UnpinnedHostPolicy: Sendable, Hashable {
        /// Standard validation only (the default).
        case allow
        /// Refuse every host without pins (AFNetworking's behaviour). **Warning:** every host the app talks to,
        /// including third-party APIs, then needs a pin set.
        case deny
    }

    /// What to do with a host the app is configured to pin (``PinTrustManager/expectSets(for:)``, which
    /// ``PinSetUpdater`` calls for its hosts) but holds no set for yet: the pin server was down, the signing key
    /// is wrong, the URL mistyped, and nothing was cached or bundled.
    public enum MissingSetPolicy: Sendable, Hashable {
        /// Refuse the connection (the default): a host the app means to pin never silently falls back to
        /// standard validation alone. To wait instead, `await updater.refreshNow()` before connecting, or
        /// install bundled documents (``PinTrustManager/installBundledDocuments(directory:)``).
        case refuse
        /// Standard validation only, as for a host nobody pins. The decision still says
        /// ``TrustDecision/setMissing(host:allowed:)``, so the app can tell.
        case allow
    }

    /// What to do with a set whose document passed `expiresAt` because no fresh one could be fetched.
    public enum StaleSetPolicy: Sendable, Hashable {
        /// Keep enforcing the last accepted pins (the default).
        case keepEnforcing
        /// Stop pinning the host until a fresh document arrives: it is then treated as a host nobody pins, so
        /// ``UnpinnedHostPolicy/allow`` gives standard validation only and ``UnpinnedHostPolicy/deny`` refuses it.
        case stopPinning
    }

    /// Default ``UnpinnedHostPolicy/allow``.
    public var unpinnedHosts: UnpinnedHostPolicy
    /// Default ``MissingSetPolicy/refuse``.
    public var missingSets: MissingSetPolicy
    /// Default ``StaleSetPolicy/keepEnforcing``.
    public var staleSetPolicy: StaleSetPolicy
    /// Clock tolerance in seconds when deciding whether a set is stale. Default 300.
    public var skew: Double
    /// How many certificates' pins the manager caches. Default 256.
    public var cacheCapacity: Int
    /// The C2SP tlog-policy documents must satisfy (PROTOCOL §7.4): the log's key, the witnesses' keys and the
    /// quorum. Default `nil`: no log is required. With a policy, ``PinSetUpdater`` accepts a pin or trust document
    /// only with a proof that it is in the log, under a checkpoint cosigned by the quorum and consistent with the
    /// largest checkpoint accepted before; bundled documents need their proof beside them
    /// (``PinTrustManager/installBundledDocuments(directory:)``). Set it from the policy's text with
    /// ``setLogPolicy(text:)``.
    ///
    /// **Warning:** ``PinTrustManager/accept(_:for:now:)`` called directly checks no proof; only the updater and
    /// the bundle installer do.
    public var logPolicy: LogPolicy?

    /// Creates options; every field has the default described on it.
    public init(
        unpinnedHosts: UnpinnedHostPolicy = .allow, missingSets: MissingSetPolicy = .refuse,
        staleSetPolicy: StaleSetPolicy = .keepEnforcing, skew: Double = 300, cacheCapacity: Int = 256,
        logPolicy: LogPolicy? = nil
    ) {
        self.unpinnedHosts = unpinnedHosts
        self.missingSets = missingSets
        self.staleSetPolicy = staleSetPolicy
        self.skew = skew
        self.cacheCapacity = cacheCapacity
        self.logPolicy = logPolicy
    }

    /// Parses `text` as a C2SP tlog-policy (``LogPolicy/init(parsing:)``) and sets ``logPolicy``.
    /// - Throws: ``LogErrorCode/malformed`` naming the line at fault; ``logPolicy`` is then unchanged.
    public mutating func setLogPolicy(text: String) throws(LogError) {
        logPolicy = try LogPolicy(parsing: Array(text.utf8))
    }
}
