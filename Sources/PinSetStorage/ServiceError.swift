import PinSetAdminAPI
import PinSetCore

/// Why a service call failed, with the HTTP status and a detail that tells the caller what to fix.
/// Storage details never appear in ``detail``; they go to the log. Compare ``code``, not the message.
package struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; each maps to one HTTP status (its problem answer, ``status``).
    package enum Code: String, Sendable, Equatable, CaseIterable {
        /// 400: malformed request body or parameter.
        case badRequest
        /// 400: the host name is not a valid DNS name.
        case invalidHost
        /// 404: unknown host or pin.
        case notFound
        /// 412: `If-Match` does not match the current ETag.
        case preconditionFailed
        /// 422: the resulting set breaks a safety rule (see ``ServiceError/rule``).
        case unprocessable
        /// 409: the request conflicts with the current state (e.g. a token name in use).
        case conflict
        /// 500: the database failed; details are in the log.
        case storage
        /// 503: the database is not available.
        case unavailable
        /// 413: the request is larger than a limit of its own (a report's stored bytes).
        case payloadTooLarge
        /// 429: too many requests of its kind; ``ServiceError/retryAfter`` says when to retry.
        case tooManyRequests
        /// 503: the disk holding the database is full; nothing was written (problem `storage-full`).
        case storageFull
        /// 503: the database file, its `-wal` or its `-shm` was replaced or deleted under the running server; writes
        /// are refused until it restarts (problem `storage-replaced`).
        case storageReplaced
        /// 503: the host's stored document does not match the hash stored with it (problem `document-damaged`).
        case documentDamaged
        /// 503: the database was made by a newer pinset (a migration this binary does not know) or is not a pinset
        /// database (problem `incompatible-database`).
        case incompatibleDatabase
    }

    /// The kind of failure.
    package let code: Code
    /// The HTTP status: the one table of them. The server's problem answer (`HTTPProblemError`, in PinSetServer,
    /// above this target) takes its status from here; the CLI prints it without the server.
    package var status: Int {
        switch code {
        case .badRequest, .invalidHost: 400
        case .notFound: 404
        case .preconditionFailed: 412
        case .unprocessable: 422
        case .conflict: 409
        case .storage: 500
        case .unavailable, .storageFull, .storageReplaced, .documentDamaged, .incompatibleDatabase: 503
        case .payloadTooLarge: 413
        case .tooManyRequests: 429
        }
    }
    /// What the caller should fix. Never contains storage details or secrets.
    package let detail: String
    /// For 422: the safety rule broken.
    package let rule: PinSetError.Code?
    /// For a refused trust document (`PUT /admin/trust`): the rule of PROTOCOL §6 broken.
    package var trustRule: TrustRejection.Code? = nil
    /// For a 422 of the pre-flight check: what each address serves.
    package var preflight: PreflightReport?
    /// For a 429: the seconds to wait (`Retry-After`).
    package var retryAfter: Int?

    /// Creates an error.
    package init(_ code: Code, _ detail: String, rule: PinSetError.Code? = nil) {
        self.code = code
        self.detail = detail
        self.rule = rule
    }

    /// A refused trust document: 400 when it is not a trust document at all, else 422 with the rule broken.
    package init(_ rejection: TrustRejection) {
        switch rejection.code {
        case .malformed, .malformedHeader, .tooLarge:
            self.init(.badRequest, rejection.detail)
        default:
            self.init(.unprocessable, rejection.detail)
        }
        trustRule = rejection.code
    }

    /// A 422 for a broken safety rule.
    package init(_ error: PinSetError) {
        self.init(.unprocessable, error.detail, rule: error.code)
    }

    package var description: String { "\(status) \(code.rawValue): \(detail)" }
}
