import Logging

/// A log handler that escapes control characters in the message and the metadata before the handler it
/// wraps writes them: a request path or header with `%0A` cannot start a forged line of its own (issue 40). A line
/// feed is written `\n`, a carriage return `\r`, a tab `\t`, any other C0 or C1 control, DEL and the Unicode line
/// and paragraph separators `\u{XX}`; a backslash is written `\\` so that an escape cannot be forged either.
package struct EscapingLogHandler<Wrapped: LogHandler>: LogHandler {
    /// The handler that writes the escaped events.
    package var wrapped: Wrapped

    /// Wraps `wrapped`.
    package init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The wrapped handler's metadata provider (its values are escaped when an event is logged).
    package var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    /// The wrapped handler's metadata (escaped when an event is logged).
    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    /// The wrapped handler's level.
    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    /// One metadata value of the wrapped handler.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    /// Logs `event` through the wrapped handler with its message and metadata escaped.
    package func log(event: LogEvent) {
        var escaped = event
        escaped.message = "\(Self.escape(event.message.description))"
        escaped.metadata = event.metadata.map(Self.escape)
        // The handler's own metadata and its provider's are escaped too: set them on a copy, escaped.
        var handler = wrapped
        handler.metadata = Self.escape(wrapped.metadata)
        if let provider = wrapped.metadataProvider {
            handler.metadataProvider = Logger.MetadataProvider { Self.escape(provider.get()) }
        }
        handler.log(event: escaped)
    }

    /// `text` with every control character escaped (see the type's description).
    package static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            case _ where needsEscape(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
            || scalar == "\\"
    }

    private static func escape(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var result: Logger.Metadata = [:]
        for (key, value) in metadata { result[escape(key)] = escape(value) }
        return result
    }

    private static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(escape(text))
        case .stringConvertible(let convertible): .string(escape(convertible.description))
        case .array(let values): .array(values.map(escape))
        case .dictionary(let metadata): .dictionary(escape(metadata))
        }
    }
}
