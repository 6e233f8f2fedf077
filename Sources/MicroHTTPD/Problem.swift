/// RFC 9457 problem+json bodies for the answers the wrapper gives on its own (413, 500).
enum Problem {
    /// `{"type":"urn:pinset:problem:<slug>","title":…,"status":…,"detail":…}` as UTF-8.
    static func body(slug: String, title: String, status: Int, detail: String) -> [UInt8] {
        let json =
            "{\"type\":\"urn:pinset:problem:\(slug)\",\"title\":\(quoted(title)),\"status\":\(status),"
            + "\"detail\":\(quoted(detail))}"
        return Array(json.utf8)
    }

    /// A prepared problem response with `Content-Type: application/problem+json`.
    static func response(slug: String, title: String, status: Int, detail: String) -> PreparedResponse {
        PreparedResponse(
            status: status, headers: [("Content-Type", "application/problem+json")],
            body: body(slug: slug, title: title, status: status, detail: detail))
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
