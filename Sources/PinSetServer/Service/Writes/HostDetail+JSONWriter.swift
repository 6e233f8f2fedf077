import PinSetAdminAPI
import PinSetCore

extension HostDetail {
    /// The JSON answer of the admin API: byte for byte `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`
    /// (``JSONWriter``), without its cost on the write path.
    public func encodedJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 384 + 160 * pins.count)
        writer.object { json in
            json.key("enforce")
            json.bool(enforce)
            json.key("etag")
            json.string(etag)
            json.key("expiresAt")
            json.date(expiresAt)
            json.key("host")
            json.string(host)
            json.key("includeSubdomains")
            json.bool(includeSubdomains)
            json.key("issuedAt")
            json.date(issuedAt)
            json.key("kid")
            json.string(kid)
            json.key("pins")
            json.pins(pins)
            if let reportUri {
                json.key("reportUri")
                json.string(reportUri)
            }
            json.key("updatedAt")
            json.date(updatedAt)
            json.key("version")
            json.int(version)
        }
        return writer.bytes
    }
}
