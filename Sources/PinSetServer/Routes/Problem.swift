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

    /// The body of a problem with only the four core members, written directly: the bytes `AdminJSON.encoder`
    /// writes (sorted keys, slashes not escaped; a test compares the two), for a fraction of its CPU. A flood's
    /// refusals are mostly this (issue 40's B5r: the encoder was a third of a refused junk report's own work).
    static func coreBody(type: String, title: String, status: Int, detail: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + type.utf8.count + title.utf8.count + detail.utf8.count)
        out.append(contentsOf: #"{"detail":"#.utf8)
        appendString(detail, to: &out)
        out.append(contentsOf: #","status":"#.utf8)
        out.append(contentsOf: String(status).utf8)
        out.append(contentsOf: #","title":"#.utf8)
        appendString(title, to: &out)
        out.append(contentsOf: #","type":"#.utf8)
        appendString(type, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string: `"` and `\` escaped, control characters as `JSONEncoder` writes them.
    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x08: out += Array(#"\b"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0C: out += Array(#"\f"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x00..<0x20: out += Array(#"\u00"#.utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
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
