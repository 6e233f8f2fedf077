#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An RFC 7512 PKCS#11 URI naming a key: `pkcs11:token=pinset;object=signing-2026`, optionally with `id=`
/// (percent-encoded bytes), `type=`, and the query attributes `pin-source=file:/path` and `module-path=`.
///
/// `pin-value` is refused: a PIN on a command line shows in `ps` and in shell history.
public struct PKCS11URI: Sendable, Equatable, CustomStringConvertible {
    /// `token=`: the token's label.
    public var token: String?
    /// `object=`: the key's `CKA_LABEL`.
    public var object: String?
    /// `id=`: the key's `CKA_ID`.
    public var id: [UInt8]?
    /// `type=`: `private`, `public`… (informational: the key is always used through its private object).
    public var type: String?
    /// `pin-source=`: where the PIN is read (`file:/path`).
    public var pinSource: String?
    /// `module-path=`: the module to load, overriding the configured one.
    public var modulePath: String?

    /// Whether `text` is meant as a PKCS#11 URI (begins with `pkcs11:`) rather than a file path.
    public static func isURI(_ text: String) -> Bool { text.lowercased().hasPrefix("pkcs11:") }

    /// Parses `text`.
    /// - Throws: ``PKCS11Error/Code/invalidURI`` naming the attribute at fault.
    public init(_ text: String) throws(PKCS11Error) {
        guard Self.isURI(text) else {
            throw PKCS11Error(.invalidURI, "a PKCS#11 URI begins with pkcs11:, e.g. pkcs11:token=pinset;object=signing")
        }
        let body = text.dropFirst("pkcs11:".count)
        let parts = body.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var seen = Set<String>()
        for attribute in parts[0].split(separator: ";") {
            let (name, value) = try Self.attribute(attribute, seen: &seen)
            switch name {
            case "token": token = try Self.text(value, name)
            case "object": object = try Self.text(value, name)
            case "id": id = try Self.decode(value, name)
            case "type": type = try Self.text(value, name)
            default:
                throw PKCS11Error(
                    .invalidURI,
                    "the PKCS#11 URI attribute \(name) is not supported here; name the key with token=, object= and id="
                )
            }
        }
        if parts.count == 2 {
            for attribute in parts[1].split(separator: "&") {
                let (name, value) = try Self.attribute(attribute, seen: &seen)
                switch name {
                case "pin-source": pinSource = try Self.text(value, name)
                case "module-path": modulePath = try Self.text(value, name)
                case "pin-value":
                    throw PKCS11Error(
                        .invalidURI,
                        "pin-value is refused: a PIN in a URI ends up in ps and shell history; use pin-source=file:/path or PINSET_PKCS11_PIN"
                    )
                default:
                    throw PKCS11Error(
                        .invalidURI,
                        "the PKCS#11 URI query attribute \(name) is not supported here; use pin-source= or module-path="
                    )
                }
            }
        }
    }

    /// The URI in RFC 7512 form (nothing secret: a URI never holds a PIN here).
    public var description: String {
        var path: [String] = []
        if let token { path.append("token=\(Self.encode(Array(token.utf8)))") }
        if let object { path.append("object=\(Self.encode(Array(object.utf8)))") }
        if let id { path.append("id=\(id.map { "%" + String(format2: $0) }.joined())") }
        if let type { path.append("type=\(Self.encode(Array(type.utf8)))") }
        var query: [String] = []
        if let pinSource { query.append("pin-source=\(Self.encode(Array(pinSource.utf8)))") }
        if let modulePath { query.append("module-path=\(Self.encode(Array(modulePath.utf8)))") }
        return "pkcs11:" + path.joined(separator: ";") + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The PIN: read from ``pinSource`` when the URI has one (one trailing newline dropped), else `fallback`
    /// (the PIN variable).
    /// - Throws: ``PKCS11Error/Code/pinSourceUnreadable``, ``PKCS11Error/Code/pinNotGiven``.
    public func pin(fallback: String?) throws(PKCS11Error) -> String {
        guard let pinSource else {
            guard let fallback, !fallback.isEmpty else {
                throw PKCS11Error(
                    .pinNotGiven,
                    "no PIN for token \"\(token ?? "?")\": add ?pin-source=file:/path/to/pin to the URI or set PINSET_PKCS11_PIN"
                )
            }
            return fallback
        }
        var path = pinSource
        if path.hasPrefix("file://") {
            path.removeFirst("file://".count)
        } else if path.hasPrefix("file:") {
            path.removeFirst("file:".count)
        }
        guard let file = fopen(path, "r") else {
            throw PKCS11Error(
                .pinSourceUnreadable, "cannot read the PIN file \(path) (pin-source of the PKCS#11 URI)")
        }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 1025)
        let count = fread(&buffer, 1, buffer.count, file)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        guard count > 0, count <= 1024 else {
            throw PKCS11Error(
                .pinSourceUnreadable, "the PIN file \(path) is empty or larger than 1 KiB; it holds the PIN alone")
        }
        var pin = Array(buffer[0..<count])
        if pin.last == UInt8(ascii: "\n") { pin.removeLast() }
        if pin.last == UInt8(ascii: "\r") { pin.removeLast() }
        return String(decoding: pin, as: UTF8.self)
    }

    private static func attribute(_ text: Substring, seen: inout Set<String>) throws(PKCS11Error) -> (
        String, Substring
    ) {
        guard let equals = text.firstIndex(of: "=") else {
            throw PKCS11Error(.invalidURI, "the PKCS#11 URI attribute \"\(text.prefix(40))\" has no =value")
        }
        let name = String(text[..<equals]).lowercased()
        guard seen.insert(name).inserted else {
            throw PKCS11Error(.invalidURI, "the PKCS#11 URI gives \(name) twice")
        }
        return (name, text[text.index(after: equals)...])
    }

    private static func text(_ value: Substring, _ name: String) throws(PKCS11Error) -> String {
        let bytes = try decode(value, name)
        guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else {
            throw PKCS11Error(.invalidURI, "the PKCS#11 URI attribute \(name) is empty or not UTF-8")
        }
        return text
    }

    /// Percent-decoding (RFC 3986 §2.1).
    private static func decode(_ value: Substring, _ name: String) throws(PKCS11Error) -> [UInt8] {
        var out: [UInt8] = []
        var iterator = Array(value.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw PKCS11Error(.invalidURI, "the PKCS#11 URI attribute \(name) has a bad %-escape")
            }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-encodes everything but RFC 7512's unreserved characters and `/` (kept readable in paths).
    private static func encode(_ bytes: [UInt8]) -> String {
        let plain = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/".utf8))
        return bytes.map { plain.contains($0) ? String(UnicodeScalar($0)) : "%" + String(format2: $0).uppercased() }
            .joined()
    }
}
