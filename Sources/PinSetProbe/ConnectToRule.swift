/// One `--connect-to HOST1:PORT1:HOST2:PORT2` mapping, in curl's syntax: a probe of `HOST1:PORT1` goes to
/// `HOST2:PORT2` instead (SNI stays `HOST1`). An empty `HOST1` or `PORT1` matches any; an empty `HOST2` or
/// `PORT2` keeps the original. IPv6 addresses go in brackets (`[::1]`). Beyond curl, `HOST1` may be `*.SUFFIX`:
/// every name under `SUFFIX` (not `SUFFIX` itself), for test fleets such as `*.mon.test:443:127.0.0.1:8443`.
public struct ConnectToRule: Sendable, Hashable, CustomStringConvertible {
    /// The host the mapping applies to (lowercase), or `nil` for any host.
    public let host: String?
    /// The port it applies to, or `nil` for any.
    public let port: Int?
    /// Where to connect instead (name or address), or `nil` to keep the host.
    public let targetHost: String?
    /// The port to connect to instead, or `nil` to keep the port.
    public let targetPort: Int?

    /// Parses `HOST1:PORT1:HOST2:PORT2`; `nil` when it is not in that form.
    public init?(_ text: String) {
        var fields = [String]()
        var current = ""
        var inBrackets = false
        for character in text {
            switch character {
            case "[": inBrackets = true
            case "]": inBrackets = false
            case ":" where !inBrackets:
                fields.append(current)
                current = ""
            default: current.append(character)
            }
        }
        fields.append(current)
        guard fields.count == 4 else { return nil }
        func parsePort(_ text: String) -> Int?? {
            if text.isEmpty { return .some(nil) }
            guard let value = Int(text), (1...65_535).contains(value) else { return nil }
            return .some(value)
        }
        guard let port1 = parsePort(fields[1]), let port2 = parsePort(fields[3]) else { return nil }
        host = fields[0].isEmpty ? nil : fields[0].lowercased()
        port = port1
        targetHost = fields[2].isEmpty ? nil : fields[2]
        targetPort = port2
    }

    /// Whether the mapping applies to `host` on `port`.
    public func applies(to host: String, port: Int) -> Bool {
        guard self.port == nil || self.port == port else { return false }
        guard let pattern = self.host else { return true }
        if pattern.hasPrefix("*.") {
            return host.count > pattern.count - 1 && host.hasSuffix(pattern.dropFirst())
        }
        return pattern == host
    }

    public var description: String {
        func bracket(_ host: String?) -> String {
            guard let host else { return "" }
            return host.contains(":") ? "[\(host)]" : host
        }
        return
            "\(bracket(host)):\(port.map(String.init) ?? ""):\(bracket(targetHost)):\(targetPort.map(String.init) ?? "")"
    }
}
