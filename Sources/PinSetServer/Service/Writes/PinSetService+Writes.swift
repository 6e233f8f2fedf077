import Foundation
internal import GRDB
import PinSetAdminAPI
import PinSetCore
import PinSetProbe
import PinSetStorage

extension PinSetService {
    /// What a write wants the new set to be.
    struct PlannedSet: Sendable {
        var pins: [Pin]
        var includeSubdomains: Bool
        var enforce: Bool
        var reportUri: String?
        var change: ChangeKind
        var retired = false
    }

    /// Replaces the whole set of `host`, creating the host if needed (`created` is then `true`, as it is when
    /// the host had been retired). A `reportUri` of `nil` takes ``ServiceConfiguration/defaultReportURI``.
    /// `If-Match` on a host that does not exist gives 412.
    package func replace(host: String, request: SetRequest, ifMatch: String?, tokenName: String) throws(ServiceError)
        -> WriteOutcome
    {
        try execute(
            WriteCommand(host: Self.normalize(host), change: .replace(request), ifMatch: ifMatch, tokenName: tokenName))
    }

    /// Appends pins to the set of an existing host (404 otherwise). Policy fields stay as they are.
    package func addPins(host: String, request: PinsRequest, ifMatch: String?, tokenName: String) throws(ServiceError)
        -> WriteOutcome
    {
        try execute(
            WriteCommand(host: Self.normalize(host), change: .add(request), ifMatch: ifMatch, tokenName: tokenName))
    }

    /// Removes the pin whose hash is `sha256URL` (base64url without padding, as documented for the URL path, or
    /// the standard base64 every answer carries) from an existing host. 400 if it is not 32 bytes of either,
    /// 404 for an unknown host or pin, 422 if what is left breaks a safety rule (remove from an enforcing set
    /// only while a backup pin and another pin remain). `force` overrides the pre-flight check.
    package func removePin(
        host: String, sha256URL: String, ifMatch: String?, tokenName: String, force: Bool = false
    ) throws(ServiceError) -> WriteOutcome {
        let name = try Self.normalize(host)
        return try execute(
            WriteCommand(
                host: name, change: .remove(sha256: Self.pinHash(path: sha256URL), force: force), ifMatch: ifMatch,
                tokenName: tokenName))
    }

    /// The pin hash (standard base64) of the `{sha256}` in a path: base64url without padding, as documented, or
    /// the standard base64 every answer carries. 400 if it is not 32 bytes of either.
    static func pinHash(path sha256URL: String) throws(ServiceError) -> String {
        guard let bytes = Base64URL.decode(sha256URL) ?? Base64.decode(sha256URL), bytes.count == 32 else {
            throw ServiceError(
                .badRequest,
                "the pin in the path must be 32 bytes in base64url (no padding, e.g. \(String(repeating: "A", count: 43))) or in standard base64"
            )
        }
        return Base64.encode(bytes)
    }

    /// Retires an existing host: the next version has no pins and `enforce: false`, so clients stop pinning it.
    /// The host keeps its version counter; a later `PUT` re-creates it at the following version.
    package func retire(host: String, ifMatch: String?, tokenName: String) throws(ServiceError) -> WriteOutcome {
        try execute(WriteCommand(host: Self.normalize(host), change: .retire, ifMatch: ifMatch, tokenName: tokenName))
    }

    /// Whether running `command` waits: it probes its host (``WriteCommand/probes(_:)``) or, with a transparency
    /// log, waits for the checkpoint that includes it. The router then runs it off libmicrohttpd's worker thread.
    func waits(_ command: WriteCommand) -> Bool {
        log != nil || command.probes(configuration.probes.preflight)
    }

    /// The one write path, straight: probe the host (when the pre-flight check is on or a pin asks for
    /// `capture`), resolve the pins once, check the plan once against the probe on a read of the current state
    /// (outside the writer: never hold it during network I/O), then one transaction that re-checks only what the
    /// probe could have raced (the host changed meanwhile: plan again, 409 if its pins differ), signs, saves and
    /// stores the probe as the host's status; then `publish`, in commit order.
    func execute(_ command: WriteCommand) throws(ServiceError) -> WriteOutcome {
        try Self.checkIfMatch(command.ifMatch)
        let mode = configuration.probes.preflight
        let probe =
            command.probes(mode)
            ? PreflightProbe(
                addresses: HostProber(configuration: configuration.probes).probe(command.host), force: command.force,
                checks: mode != .off) : nil
        let pins = try PinResolver.resolve(probe?.capturing(command.inputs) ?? command.inputs)
        if case WriteCommand.Change.add = command.change, pins.isEmpty {
            throw ServiceError(.badRequest, "\"pins\" is empty: give at least one pin to add")
        }
        func plan(_ current: HostState?) throws(ServiceError) -> PlannedSet {
            try self.plan(command, pins: pins, current: current)
        }
        var checked: CheckedPlan?
        if let probe { checked = try preflightCheck(probe, command: command, plan: plan) }
        let (outcome, ticket) = try store.serializedWrite { db in
            var outcome: WriteOutcome?
            try db.inTransaction {
                outcome = try apply(
                    db, host: command.host, ifMatch: command.ifMatch, tokenName: command.tokenName,
                    mustExist: command.mustExist, checked: checked, plan: plan)
                // The probe is a monitor pass for this host: its result is the host's status from now on, if the
                // monitor watches the new set (an enforcing one; a retired host's set does not enforce). The new
                // set is the outcome's: no need to read back what was just written.
                if let probe, let detail = outcome?.detail, detail.enforce {
                    _ = try HostProbeTable.save(
                        db,
                        HostStatus.evaluate(
                            host: command.host, pins: detail.pins, probes: probe.addresses, now: clock(),
                            expiryWarning: configuration.probes.expiryWarning))
                }
                return .commit
            }
            // Committed (synchronous=FULL: durable). Still inside the serialized section: publish in commit order.
            return (outcome!, published([(outcome!.document, outcome!.logAppend)]))
        }
        try Self.waitUntilServed(ticket)
        return outcome
    }

    /// What `command` makes of the host's `current` state, with its resolved `pins`.
    private func plan(_ command: WriteCommand, pins: [Pin], current: HostState?) throws(ServiceError) -> PlannedSet {
        switch command.change {
        case .replace(let request):
            return PlannedSet(
                pins: pins, includeSubdomains: request.includeSubdomains, enforce: request.enforce,
                reportUri: request.reportUri ?? configuration.defaultReportURI,
                change: current == nil || current!.retired ? .create : .replace)
        case .add:
            return PlannedSet(
                pins: current!.pins + pins, includeSubdomains: current!.includeSubdomains, enforce: current!.enforce,
                reportUri: current!.reportUri, change: .add)
        case .remove(let sha256, _):
            let remaining = current!.pins.filter { $0.sha256 != sha256 }
            guard remaining.count < current!.pins.count else {
                throw ServiceError(.notFound, "host \(current!.name) has no pin \(sha256)")
            }
            return PlannedSet(
                pins: remaining, includeSubdomains: current!.includeSubdomains, enforce: current!.enforce,
                reportUri: current!.reportUri, change: .remove)
        case .retire:
            return PlannedSet(
                pins: [], includeSubdomains: current!.includeSubdomains, enforce: false, reportUri: current!.reportUri,
                change: .retire, retired: true)
        }
    }

    /// One host's write inside an open transaction on the writer connection: checks, signs and saves the new
    /// version of `host` (already normalized). The caller commits, then publishes the outcome's document.
    /// `checked` is the plan the pre-flight check passed: used as it is when the host has not changed since
    /// (same version), else the plan is made again and must keep its pins (409 otherwise).
    func apply(
        _ db: Database, host: String, ifMatch: String?, tokenName: String, mustExist: Bool,
        checked: CheckedPlan? = nil, plan: (HostState?) throws(ServiceError) -> PlannedSet
    ) throws -> WriteOutcome {
        let now = StoredTime.truncate(clock())
        let current = try HostRecords.fetch(db, name: host)
        if mustExist, current == nil { throw Self.unknownHost(host) }
        if let ifMatch, !Self.matches(ifMatch: ifMatch, etag: current?.document.etag) {
            throw ServiceError(
                .preconditionFailed,
                current == nil
                    ? "If-Match was given but host \(host) has no pin set; drop If-Match to create it"
                    : "If-Match \(ifMatch.prefix(60)) is stale: the current ETag of \(host) is \(current!.document.etag); fetch the set again and reapply your change"
            )
        }
        let planned: PlannedSet
        if let checked, checked.version == current?.version {
            planned = checked.planned
        } else {
            planned = try plan(current)
            if let checked, planned.pins != checked.planned.pins {
                throw ServiceError(
                    .conflict, "the pin set of \(host) changed during the pre-flight check; send the write again")
            }
            try Self.checkRules(planned, now: now)
        }
        let set = PinSet(
            host: host, version: (current?.version ?? 0) + 1, issuedAt: now,
            expiresAt: now.addingTimeInterval(configuration.documentLifetime),
            includeSubdomains: planned.includeSubdomains, enforce: planned.enforce, pins: planned.pins,
            reportUri: planned.reportUri)
        let (document, payload) = try sign(set)
        let version = HostRecords.NewVersion(
            set: set, payload: payload, document: document, after: current?.pins ?? [], retired: planned.retired,
            tokenName: tokenName, change: planned.change, forced: checked?.report.forced ?? false)
        let hostId = try HostRecords.save(db, version, existingId: current?.id)
        let state = HostState(
            id: hostId, name: host, version: set.version, includeSubdomains: set.includeSubdomains,
            enforce: set.enforce, reportUri: set.reportUri, retired: planned.retired, updatedAt: now,
            pins: set.pins, document: document)
        var outcome = WriteOutcome(detail: state.detail, document: document, created: planned.change == .create)
        outcome.preflight = checked?.report
        outcome.logAppend = try logDocument(db, hostId: hostId, document)
        return outcome
    }

    /// The checks every new set passes: its `reportUri` (422 ``PinSetErrorCode/invalidReportURI``) and the
    /// safety rules of PROTOCOL §5 (422 with the rule broken).
    static func checkRules(_ planned: PlannedSet, now: Date) throws(ServiceError) {
        try checkReportURI(planned.reportUri)
        do throws(PinSetError) {
            try PinSet.checkSafetyRules(pins: planned.pins, enforce: planned.enforce, now: now)
        } catch {
            throw ServiceError(error)
        }
    }

    /// 400 unless `ifMatch` is absent, `*`, or a comma-separated list of entity tags (`"x"` or `W/"x"`) with
    /// optional blanks (RFC 9110 §13.1.1, as openapi.yaml's pattern says): an empty or malformed header is a bad
    /// request, not a stale ETag.
    static func checkIfMatch(_ ifMatch: String?) throws(ServiceError) {
        guard let ifMatch else { return }
        guard entityTags(ifMatch) != nil else {
            throw ServiceError(
                .badRequest,
                "If-Match must be * or one or more quoted ETags, e.g. If-Match: \"<ETag of GET /admin/hosts/{host}>\"; drop the header for an unconditional write"
            )
        }
    }

    /// The entity tags of an `If-Match` value as written (`"x"`, `W/"x"`, or `*`), or `nil` when it is not
    /// `*` nor a list of quoted tags. Any character but `"` may stand inside the quotes, commas included.
    static func entityTags(_ value: String) -> [Substring]? {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var rest = Substring(value).drop(while: blank)
        while let last = rest.last, blank(last) { rest = rest.dropLast() }
        if rest == "*" { return [rest] }
        var tags: [Substring] = []
        while true {
            let start = rest.startIndex
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
            tags.append(value[start...close])
            rest = rest[rest.index(after: close)...].drop(while: blank)
            if rest.isEmpty { return tags }
            guard rest.first == "," else { return nil }
            rest = rest.dropFirst().drop(while: blank)
        }
    }

    /// Whether an `If-Match` header value (one or more comma-separated entity tags, or `*`) matches `etag`
    /// (strong comparison: a weak tag never matches).
    static func matches(ifMatch: String, etag: String?) -> Bool {
        guard let etag, let tags = entityTags(ifMatch) else { return false }
        return tags.contains { $0 == "*" || $0 == etag }
    }

    /// 422 ``PinSetErrorCode/invalidReportURI`` unless `uri` is `nil` or an absolute http(s) URL with a host.
    static func checkReportURI(_ uri: String?) throws(ServiceError) {
        guard let uri else { return }
        guard uri.utf8.count <= 2048, let url = URL(string: uri), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else {
            throw ServiceError(
                PinSetError(
                    .invalidReportURI,
                    "reportUri \"\(uri.prefix(80))\" must be an absolute http or https URL, e.g. https://pins.example.com/reports"
                ))
        }
    }
}
