import Foundation
import PinSetProbe
import PinSetStorage

/// How the pin set service signs and publishes documents. Every field has a default.
package struct ServiceConfiguration: Sendable {
    /// How long a signed document stays valid (`expiresAt - issuedAt`). Default 14 days.
    package var documentLifetime: TimeInterval
    /// How often clients should refetch; the `max-age` of `Cache-Control`. Default 1 hour.
    package var refreshInterval: TimeInterval
    /// Re-sign a document once it is this old. `nil` (the default) means half of ``documentLifetime``.
    package var resignAfter: TimeInterval?
    /// The `reportUri` put into sets whose write gives none. Default `nil` (no report URI).
    package var defaultReportURI: String?
    /// Pre-flight checks of writes and the host monitor (issue 14). Default: both off.
    package var probes = ProbeConfiguration()
    /// The clock skew clients allow (PROTOCOL §5 step 5): a document whose `issuedAt` is further than this ahead
    /// of the server's clock (signed while the clock was ahead) is re-signed at once. Default 300 seconds.
    package var clockSkew: TimeInterval = 300
    /// Trust the clock even when it is more than ``documentLifetime`` ahead of the newest stored document
    /// (`--trust-clock`): then every document is re-signed with its dates. Default `false`: such a start is
    /// refused and the re-signer holds off, since a clock a year ahead would re-sign every document with dates
    /// clients refuse once the clock is right again.
    package var trustClock = false

    /// Creates a configuration; every parameter has the default documented on its property.
    package init(
        documentLifetime: TimeInterval = PublishedDocument.defaultLifetime, refreshInterval: TimeInterval = 3_600,
        resignAfter: TimeInterval? = nil, defaultReportURI: String? = nil
    ) {
        self.documentLifetime = documentLifetime
        self.refreshInterval = refreshInterval
        self.resignAfter = resignAfter
        self.defaultReportURI = defaultReportURI
    }

    /// The age after which a document is re-signed: ``resignAfter`` or half of ``documentLifetime``.
    package var effectiveResignAfter: TimeInterval { resignAfter ?? documentLifetime / 2 }
}
