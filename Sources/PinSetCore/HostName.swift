/// Host names as the protocol writes them (PROTOCOL §2): lowercase ASCII DNS names, IDNs as A-labels,
/// no trailing dot, no port.
public enum HostName {
    /// Why a host name was refused.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible, Sendable {
        /// A human-readable reason, safe to show to a caller.
        public let description: String
    }

    /// Normalises `text` to the protocol's form: ASCII letters are lowercased and one trailing dot is dropped.
    ///
    /// Everything else that is not a valid DNS name is refused rather than repaired: a port, a path, an empty
    /// label, a label over 63 bytes or with a leading or trailing hyphen, non-ASCII characters (send IDNs as
    /// `xn--` A-labels), a name over 253 bytes, or an IP address literal.
    public static func normalize(_ text: some StringProtocol) throws(Error) -> String {
        var bytes = Array(text.utf8)
        if bytes.last == 0x2E { bytes.removeLast() }
        guard !bytes.isEmpty else { throw Error(description: "the host name is empty") }
        guard bytes.count <= 253 else { throw Error(description: "the host name is longer than 253 characters") }
        var labelStart = 0
        var allNumeric = true
        for index in 0...bytes.count {
            if index == bytes.count || bytes[index] == 0x2E {
                let length = index - labelStart
                guard length > 0 else { throw Error(description: "the host name has an empty label") }
                guard length <= 63 else {
                    throw Error(description: "a label of the host name is longer than 63 characters")
                }
                guard bytes[labelStart] != 0x2D, bytes[index - 1] != 0x2D else {
                    throw Error(description: "a label of the host name starts or ends with a hyphen")
                }
                labelStart = index + 1
                continue
            }
            switch bytes[index] {
            case 0x41...0x5A: bytes[index] += 0x20; allNumeric = false
            case 0x61...0x7A, 0x2D: allNumeric = false
            case 0x30...0x39: break
            case 0x3A: throw Error(description: "the host name must not carry a port or be an IPv6 address")
            case 0x80...:
                throw Error(description: "the host name must be ASCII: send internationalised names as xn-- A-labels")
            default: throw Error(description: "the host name may only contain letters, digits, hyphens and dots")
            }
        }
        // A last label of digits, or `0x` and hex digits, makes resolvers read the name as an IPv4 address
        // (`0xa9fea9fe`, `1.0x7f`: WHATWG URL's IPv4 parser, inet_aton).
        let last = bytes[(bytes.lastIndex(of: 0x2E).map { $0 + 1 } ?? 0)...]
        let hex = last.count >= 2 && last.first == 0x30 && last.dropFirst().first == 0x78
        let numeric =
            hex
            ? last.dropFirst(2).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            : last.allSatisfy { (0x30...0x39).contains($0) }
        guard !allNumeric, !numeric else {
            throw Error(description: "the host name must be a DNS name, not an IP address")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The names whose pin sets can govern `host`, nearest first: the host itself, then each parent domain.
    /// `"a.b.example.com"` gives `["a.b.example.com", "b.example.com", "example.com", "com"]`.
    public static func lookupChain(_ host: String) -> [Substring] {
        var result: [Substring] = [host[...]]
        var rest = host[...]
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            result.append(rest)
        }
        return result
    }
}
