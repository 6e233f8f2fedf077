/// A pin validation failure report in TrustKit's JSON fields (PROTOCOL §3, `POST /reports`).
public struct PinFailureReport: Codable, Sendable, Hashable {
    /// When the failure happened, RFC 3339.
    public var dateTime: String
    /// The host the app connected to.
    public var hostname: String
    /// The port it connected to.
    public var port: Int
    /// The pinned domain whose policy applied (the host or a parent with `includeSubdomains`).
    public var notedHostname: String
    /// Whether the applied policy covers subdomains.
    public var includeSubdomains: Bool
    /// Whether the applied policy blocks connections.
    public var enforcePinning: Bool
    /// The served chain as PEM strings, leaf first.
    public var validatedCertificateChain: [String]
    /// The pins in force, as `pin-sha256="…"` strings (TrustKit's form).
    public var knownPins: [String]
    /// TrustKit's validation result code (1 = pin validation failed).
    public var validationResult: Int
    /// The app's bundle identifier, version and vendor id (TrustKit's `app-*` fields).
    public var appBundleId: String?
    /// The app version.
    public var appVersion: String?
    /// The app's platform.
    public var appPlatform: String?
    /// The app's platform version.
    public var appPlatformVersion: String?
    /// A per-install identifier.
    public var appVendorId: String?
    /// The reporting library's version.
    public var appTrustkitVersion: String?
    /// pinset's extra field (TrustKit collectors ignore unknown fields): `staleSet` when a newer signed set accepts
    /// the chain (the app was behind a rotation), `unexpectedKey` when the newest set still refuses it (possible
    /// interception); absent when the client did not classify the failure.
    public var pinsetClassification: String?

    private enum CodingKeys: String, CodingKey {
        case dateTime = "date-time", hostname, port, notedHostname = "noted-hostname"
        case includeSubdomains = "include-subdomains", enforcePinning = "enforce-pinning"
        case validatedCertificateChain = "validated-certificate-chain", knownPins = "known-pins"
        case validationResult = "validation-result", appBundleId = "app-bundle-id", appVersion = "app-version"
        case appPlatform = "app-platform", appPlatformVersion = "app-platform-version"
        case appVendorId = "app-vendor-id", appTrustkitVersion = "app-trustkit-version"
        case pinsetClassification = "pinset-classification"
    }

    /// Creates a report.
    public init(
        dateTime: String, hostname: String, port: Int, notedHostname: String, includeSubdomains: Bool,
        enforcePinning: Bool, validatedCertificateChain: [String], knownPins: [String], validationResult: Int = 1,
        appBundleId: String? = nil, appVersion: String? = nil, appPlatform: String? = nil,
        appPlatformVersion: String? = nil, appVendorId: String? = nil, appTrustkitVersion: String? = nil,
        pinsetClassification: String? = nil
    ) {
        self.dateTime = dateTime
        self.hostname = hostname
        self.port = port
        self.notedHostname = notedHostname
        self.includeSubdomains = includeSubdomains
        self.enforcePinning = enforcePinning
        self.validatedCertificateChain = validatedCertificateChain
        self.knownPins = knownPins
        self.validationResult = validationResult
        self.appBundleId = appBundleId
        self.appVersion = appVersion
        self.appPlatform = appPlatform
        self.appPlatformVersion = appPlatformVersion
        self.appVendorId = appVendorId
        self.appTrustkitVersion = appTrustkitVersion
        self.pinsetClassification = pinsetClassification
    }
}
