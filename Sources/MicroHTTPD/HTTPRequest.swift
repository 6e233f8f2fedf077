import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request, as seen by ``HTTPHandler/handle(_:)``.
///
/// - Warning: valid only during the `handle` call: it points into libmicrohttpd's connection memory.
///   Copy what you need (``path``, ``header(_:)``, ``body``) and never let the value escape.
public struct HTTPRequest {
    private let connection: OpaquePointer
    private let url: UnsafePointer<CChar>
    private let state: ConnectionState

    /// The request method.
    public let method: HTTPMethod

    init(connection: OpaquePointer, url: UnsafePointer<CChar>, method: HTTPMethod, state: ConnectionState) {
        self.connection = connection
        self.url = url
        self.method = method
        self.state = state
    }

    /// The URL path as libmicrohttpd gives it: percent-decoded, without the query string. Allocates a `String`.
    public var path: String { String(cString: url) }

    /// Calls `body` with the bytes of ``path`` (no NUL), without allocating; the pointer is valid only inside.
    public func withPathBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: url, count: strlen(url)))
    }

    /// The value of request header `name` (case-insensitive), or `nil` when absent. Repeated headers: the first.
    public func header(_ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// Calls `body` with the bytes of request header `name` (case-insensitive), or `nil` when absent, without
    /// allocating; the pointer is valid only inside `body`. Repeated headers: the first.
    public func withHeaderBytes<R>(_ name: StaticString, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        precondition(name.hasPointerRepresentation, "withHeaderBytes needs a string literal name")
        var found: UnsafePointer<CChar>? = nil
        var foundSize = 0
        let result = name.utf8Start.withMemoryRebound(to: CChar.self, capacity: name.utf8CodeUnitCount) {
            MHD_lookup_connection_value_n(connection, .HEADER_KIND, $0, name.utf8CodeUnitCount, &found, &foundSize)
        }
        guard result == .YES, let found else { return try body(nil) }
        return try body(UnsafeRawBufferPointer(start: found, count: foundSize))
    }

    /// True when header `name` (case-insensitive) is present and its value equals `value` byte for byte.
    /// Allocates nothing.
    public func headerEquals(_ name: StaticString, _ value: UnsafeRawBufferPointer) -> Bool {
        withHeaderBytes(name) { found in
            guard let found, found.count == value.count else { return false }
            return found.count == 0 || memcmp(found.baseAddress!, value.baseAddress!, found.count) == 0
        }
    }

    /// The value of query parameter `name` (percent-decoded), or `nil` when absent. A parameter without `=`
    /// gives `""`. libmicrohttpd matches names case-insensitively; repeated parameters: the first.
    public func query(_ name: String) -> String? {
        var found: UnsafePointer<CChar>? = nil
        var foundSize = 0
        let present = name.withCString {
            MHD_lookup_connection_value_n(connection, .GET_ARGUMENT_KIND, $0, strlen($0), &found, &foundSize)
        }
        guard present == .YES else { return nil }
        guard let found else { return "" }
        return String(cString: found)
    }

    /// The whole request body, at most the configured `maxBodyBytes`.
    public var body: [UInt8] { state.body }

    /// The client's IP address as text (`"127.0.0.1"`, `"::1"`), computed on each call; `nil` if unknown.
    public var remoteAddress: String? {
        guard let info = cmhd_connection_info(connection, .CONNECTION_INFO_CLIENT_ADDRESS),
            let address = info.pointee.client_addr
        else { return nil }
        return SocketAddress.text(of: address)
    }
}
