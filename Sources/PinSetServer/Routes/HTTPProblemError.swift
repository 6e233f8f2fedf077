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
    /// The status of ``ServiceError/Code``, with the 422's `rule`. A storage failure is the generic 500: its
    /// details were logged where it happened.
    var problem: Problem {
        switch code {
        case .badRequest: .badRequest(detail)
        case .invalidHost: .invalidHost(detail)
        case .notFound: .notFound(detail)
        case .preconditionFailed:
            Problem(slug: "precondition-failed", title: "Precondition failed", status: 412, detail: detail)
        case .unprocessable:
            Problem(
                slug: "unprocessable", title: "Safety rule broken", status: 422, detail: detail,
                rule: rule?.rawValue ?? trustRule?.rawValue, preflight: preflight)
        case .conflict: Problem(slug: "conflict", title: "Conflict", status: 409, detail: detail)
        case .unavailable: .unavailable(detail)
        case .storageFull: Problem(slug: "storage-full", title: "Storage full", status: 503, detail: detail)
        case .storageReplaced:
            Problem(slug: "storage-replaced", title: "Database file replaced", status: 503, detail: detail)
        case .documentDamaged:
            Problem(slug: "document-damaged", title: "Stored document damaged", status: 503, detail: detail)
        case .incompatibleDatabase:
            Problem(slug: "incompatible-database", title: "Incompatible database", status: 503, detail: detail)
        case .storage: .internalError
        case .payloadTooLarge:
            Problem(slug: "payload-too-large", title: "Payload too large", status: 413, detail: detail)
        case .tooManyRequests: Self.tooMany(detail, retryAfter: retryAfter ?? 60)
        }
    }

    private static func tooMany(_ detail: String, retryAfter: Int) -> Problem {
        var problem = Problem(slug: "rate-limited", title: "Too many reports", status: 429, detail: detail)
        problem.headers = [("Retry-After", String(retryAfter))]
        return problem
    }
}
