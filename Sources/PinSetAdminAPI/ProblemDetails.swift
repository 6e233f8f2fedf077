/// The body of every error answer of the API, RFC 9457 problem details (`application/problem+json`): what the
/// server writes and the CLI reads.
public struct ProblemDetails: Codable, Sendable, Hashable {
    /// `urn:pinset:problem:<slug>`, e.g. `urn:pinset:problem:would-lock-out`.
    public var type: String
    /// A short, fixed summary of the kind of problem.
    public var title: String
    /// The HTTP status.
    public var status: Int
    /// What the caller should fix. Never a secret or a storage detail.
    public var detail: String
    /// For a `422`: the safety rule (or trust rule) broken.
    public var rule: String?
    /// For a write the pre-flight check refused: what each address serves.
    public var preflight: PreflightReport?
    /// For a `403`: the right the token lacks (`reader`, `writer`, `admin` or `host`).
    public var missingRight: String?
    /// For `GET /readyz`'s `503`: each readiness condition that does not hold, and why.
    public var notReady: [NotReadyCondition]?

    /// Creates a problem body.
    public init(
        type: String, title: String, status: Int, detail: String, rule: String? = nil,
        preflight: PreflightReport? = nil, missingRight: String? = nil, notReady: [NotReadyCondition]? = nil
    ) {
        self.notReady = notReady
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.rule = rule
        self.preflight = preflight
        self.missingRight = missingRight
    }
}

/// A readiness condition that does not hold (`GET /readyz`): its name (`index`, `signer`, `log`, `draining`, …)
/// and why, for an operator.
public struct NotReadyCondition: Codable, Sendable, Hashable {
    /// The condition's name.
    public var name: String
    /// Why it does not hold. Never a secret.
    public var detail: String

    /// Creates one.
    public init(name: String, detail: String) {
        self.name = name
        self.detail = detail
    }
}
