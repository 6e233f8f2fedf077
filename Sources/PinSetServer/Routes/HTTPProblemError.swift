import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// An error that can reach HTTP: it knows its status and its RFC 9457 problem body.
///
/// Every error a route can throw adopts it (``ServiceError``, ``Problem`` itself), and the
/// router turns it into an answer in one place (``PinSetRouter/problemResponse(for:path:)``), as Hummingbird's
/// `HTTPResponseError` is caught once. Anything else is a 500 whose details go to the log, never to the client.
protocol HTTPProblemError: Error {
    /// The problem body and status to answer with. Never carries secrets or storage details.
    var problem: Problem { get }
}

extension Problem: HTTPProblemError {
    var problem: Problem { self }
}

extension RequestBodyError: HTTPProblemError {
    var problem: Problem { .badRequest(detail) }
}

extension ServiceError: HTTPProblemError {
    /// The problem answer of ``ServiceError/Code``: its slug and title from here, its status from
    /// ``ServiceError/status`` (PinSetStorage: the one status table), with the 422's `rule`, the pre-flight report
    /// and a 429's `Retry-After`. A storage failure is the generic 500: its details were logged where it happened.
    var problem: Problem {
        if code == .storage { return .internalError }
        let (slug, title) = Self.problemType(code)
        var problem = Problem(slug: slug, title: title, status: status, detail: detail)
        switch code {
        case .unprocessable:
            problem.rule = rule?.rawValue ?? trustRule?.rawValue
            problem.preflight = preflight
        case .tooManyRequests: problem.headers = [("Retry-After", String(retryAfter ?? 60))]
        default: break
        }
        return problem
    }

    /// The problem type (slug) and title of each code.
    private static func problemType(_ code: Code) -> (slug: String, title: String) {
        switch code {
        case .badRequest: ("bad-request", "Bad request")
        case .invalidHost: ("invalid-host", "Invalid host name")
        case .notFound: ("not-found", "Not found")
        case .preconditionFailed: ("precondition-failed", "Precondition failed")
        case .unprocessable: ("unprocessable", "Safety rule broken")
        case .conflict: ("conflict", "Conflict")
        case .unavailable: ("unavailable", "Service unavailable")
        case .storageFull: ("storage-full", "Storage full")
        case .storageReplaced: ("storage-replaced", "Database file replaced")
        case .documentDamaged: ("document-damaged", "Stored document damaged")
        case .incompatibleDatabase: ("incompatible-database", "Incompatible database")
        case .storage: ("internal", "Internal error")  // not reached: a storage failure is `.internalError`
        case .payloadTooLarge: ("payload-too-large", "Payload too large")
        case .tooManyRequests: ("rate-limited", "Too many reports")
        }
    }
}
