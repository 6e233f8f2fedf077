import PinSetCore

/// What `POST /reports` reads of a body before decoding it: the top-level `noted-hostname` and `hostname` members
/// of a TrustKit report, and whether it names a `pinset-report` kind. One pass over the bytes, no allocation but
/// the two names, so that it can run on the thread that answers `GET /pins`: it decides which budget a report is
/// charged to before the report costs a decoder, a PEM parser and a hand-off to the pool (issue 40's B5r: a flood of
/// junk for invented names is then refused with `429` for about a third of the CPU that decoding it took).
///
/// Not a validator: the decoder still reads every report that is admitted, and refuses what is not JSON. A member
/// name or one of the two values spelled with an escape makes the host unknown (``host`` is `nil`); such a report
/// counts as naming a host without a set, which is what a client that escapes its host name gets.
struct ReportPeek {
    /// `hostname`'s bytes as sent, when it is a string without escapes.
    private var hostname: ArraySlice<UInt8>?
    /// `noted-hostname`'s bytes as sent, when it is a string without escapes.
    private var notedHostname: ArraySlice<UInt8>?
    /// Whether the top-level object has a `pinset-report` member (pinset's own reports, checked by their rules).
    private(set) var namesAKind = false
    /// Whether a top-level member name, or one of the two values, could not be read as plain bytes.
    private var unclear = false

    /// Reads the top-level members of `json`.
    init(_ json: [UInt8]) {
        scan(json)
    }

    /// The name the report counts under, as the decoder will read it: `noted-hostname` unless it is empty, else
    /// `hostname`; `nil` when that cannot be told without decoding (an escape, or a member missing or not a string,
    /// which the decoder then refuses).
    var host: String? {
        guard !unclear, let notedHostname, let hostname else { return nil }
        return String(decoding: notedHostname.isEmpty ? hostname : notedHostname, as: UTF8.self)
    }

    private mutating func scan(_ bytes: [UInt8]) {
        var depth = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
            case UInt8(ascii: "\""):
                guard let (end, escaped) = JSONScan.stringEnd(bytes, from: index + 1) else {
                    unclear = true
                    return
                }
                let name = index + 1..<end
                index = end + 1
                guard depth == 1 else { continue }
                let colon = JSONScan.skipSpace(bytes, from: index)
                // A string at the top level not followed by `:` is a value; the members' values are read below.
                guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":") else { continue }
                guard !escaped else {
                    unclear = true
                    continue
                }
                let member = Self.member(bytes[name])
                if member == .kind { namesAKind = true }
                guard member == .hostname || member == .notedHostname else { continue }
                let start = JSONScan.skipSpace(bytes, from: colon + 1)
                guard start < bytes.count, bytes[start] == UInt8(ascii: "\""),
                    let (valueEnd, valueEscaped) = JSONScan.stringEnd(bytes, from: start + 1), !valueEscaped
                else {
                    unclear = true
                    index = colon + 1
                    continue
                }
                let value = bytes[(start + 1)..<valueEnd]
                if member == .hostname { hostname = value } else { notedHostname = value }
                index = valueEnd + 1
            default:
                index += 1
            }
        }
    }

    private enum Member { case hostname, notedHostname, kind, other }

    private static func member(_ name: ArraySlice<UInt8>) -> Member {
        if name.elementsEqual("hostname".utf8) { return .hostname }
        if name.elementsEqual("noted-hostname".utf8) { return .notedHostname }
        if name.elementsEqual("pinset-report".utf8) { return .kind }
        return .other
    }
}
