import Foundation
import MicroHTTPD
import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// An RFC 9457 problem detail, the body of every error answer (``ProblemDetails`` on the wire), with the
/// headers that go with it.
///
/// `detail` tells the caller what to fix. It never carries secrets or internal error text:
/// unexpected failures are logged and answered with a generic 500.
struct Problem: Error, Sendable {
    var slug: String
    var title: String
    var status: Int
    var detail: String
    var rule: String?
    /// The pre-flight report of a refused write (what each address serves).
    var preflight: PreflightReport?
    /// For 403: the right the token lacks (`reader`, `writer`, `admin` or `host`).
    var missingRight: String?
    /// For `/readyz`'s 503: the conditions that do not hold.
    var notReady: [NotReadyCondition]?
    /// Extra response headers, such as `WWW-Authenticate` or `Allow`.
    var headers: [(String, String)] = []

    /// The body as the API's problem type.
    var details: ProblemDetails {
        ProblemDetails(
            type: "urn:pinset:problem:\(slug)", title: title, status: status, detail: detail, rule: rule,
            preflight: preflight, missingRight: missingRight, notReady: notReady)
    }

    var response: HTTPResponse {
        .dynamic(status: status, headers: [("Content-Type", "application/problem+json")] + headers, body: body)
    }

    /// The answer built once, for the wrapper to send many times.
    var prepared: PreparedResponse {
        PreparedResponse(status: status, headers: [("Content-Type", "application/problem+json")] + headers, body: body)
    }

    private var body: [UInt8] {
        guard rule == nil, preflight == nil, missingRight == nil, notReady == nil else {
            return (try? AdminJSON.encoder.encode(details)).map { [UInt8]($0) } ?? []
        }
        return Self.coreBody(type: "urn:pinset:problem:\(slug)", title: title, status: status, detail: detail)
    }

    /// The body of a problem with only the four core members, written by ``JSONWriter`` (the bytes
    /// `AdminJSON.encoder` writes; a test compares the two) for a fraction of the encoder's CPU: a flood's refusals
    /// are mostly this (issue 40's B5r: `JSONEncoder` was a third of the handler's CPU for a refused junk report).
    static func coreBody(type: String, title: String, status: Int, detail: String) -> [UInt8] {
        var json = JSONWriter(capacity: 64 + type.utf8.count + title.utf8.count + detail.utf8.count)
        json.object { json in
            json.member("detail", detail)
            json.member("status", status)
            json.member("title", title)
            json.member("type", type)
        }
        return json.bytes
    }

    // The problems that are also a ``ServiceError``'s take their slug, title and status from it: one table.
    static func badRequest(_ detail: String) -> Problem { ServiceError(.badRequest, detail).problem }
    static func notFound(_ detail: String) -> Problem { ServiceError(.notFound, detail).problem }
    static func unauthorized(_ detail: String) -> Problem {
        Problem(
            slug: "unauthorized", title: "Unauthorized", status: 401, detail: detail,
            headers: [("WWW-Authenticate", "Bearer realm=\"pinset\"")])
    }
    static func methodNotAllowed(_ allowed: [String]) -> Problem {
        Problem(
            slug: "method-not-allowed", title: "Method not allowed", status: 405,
            detail: "this resource accepts \(allowed.joined(separator: ", "))",
            headers: [("Allow", allowed.joined(separator: ", "))])
    }
    static func unavailable(_ detail: String) -> Problem { ServiceError(.unavailable, detail).problem }
    static let internalError = Problem(
        slug: "internal", title: "Internal error", status: 500,
        detail: "the server failed to handle the request; the cause is in the server log")
}

extension Problem {
    /// `403`: the token is valid but lacks `missing`. The detail names the token, the right it lacks and what it
    /// holds; nothing about whether the host exists.
    static func forbidden(_ missing: AdminRight.Missing, caller: AdminCaller) -> Problem {
        let detail: String
        let right: String
        switch missing {
        case .role(let role):
            right = role.rawValue
            let what =
                switch role {
                case .reader: "read pin sets"
                case .writer: "change pin sets"
                case .admin: "use this server-wide resource"
                }
            detail =
                "the token \"\(caller.name)\" has the \(caller.scope.role.rawValue) role; to \(what) it needs the \(role.rawValue) role"
        case .host(let host):
            right = "host"
            detail =
                "the token \"\(caller.name)\" may not act on \(host): its hosts are \(caller.scope.hostsDescription)"
        }
        return Problem(slug: "forbidden", title: "Forbidden", status: 403, detail: detail, missingRight: right)
    }
}
