internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request, as seen by ``HTTPHandler/handle(_:)``.
///
/// - Warning: a live request (the handler's argument) is valid only during the `handle` call: it points into
///   libmicrohttpd's connection memory. Copy what you need (``path``, ``header(_:)``, ``body``) and never let the
///   value escape. A detached request (what ``HTTPResponse/deferred(_:)`` work is given) owns copies and may
///   be used on any thread.
public struct HTTPRequest: @unchecked Sendable {
    private let connection: OpaquePointer?
    // `url` and `copy` are @usableFromInline for the inlinable byte accessors: the read cache (another module)
    // looks a path up on every GET, and a generic call across modules would cost it a closure context.
    @usableFromInline let url: UnsafePointer<CChar>?
    private let state: ConnectionState?
    @usableFromInline let copy: Detached?

    /// The request method.
    public let method: HTTPMethod

    /// A detached request's copies of everything the accessors read.
    @usableFromInline final class Detached: Sendable {
        let path: [UInt8]
        /// Header names lowercased, in arrival order.
        let headers: [(name: String, value: [UInt8])]
        let query: [(name: String, value: String?)]
        let body: [UInt8]
        let remoteAddress: String?

        init(
            path: [UInt8], headers: [(name: String, value: [UInt8])], query: [(name: String, value: String?)],
            body: [UInt8], remoteAddress: String?
        ) {
            self.path = path
            self.headers = headers
            self.query = query
            self.body = body
            self.remoteAddress = remoteAddress
        }

        /// Calls `body` with the path's bytes.
        @usableFromInline func withPath<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try path.withUnsafeBytes(body)
        }

        /// Calls `body` with the bytes of header `name` (case-insensitive), `nil` when absent; the first when
        /// repeated.
        @usableFromInline func withHeader<R>(_ name: StaticString, _ body: (UnsafeRawBufferPointer?) throws -> R)
            rethrows -> R
        {
            let lowered = name.description.lowercased()
            guard let found = headers.first(where: { $0.name == lowered }) else { return try body(nil) }
            return try found.value.withUnsafeBytes(body)
        }
    }

    init(connection: OpaquePointer, url: UnsafePointer<CChar>, method: HTTPMethod, state: ConnectionState) {
        self.connection = connection
        self.url = url
        self.method = method
        self.state = state
        copy = nil
    }

    private init(method: HTTPMethod, copy: Detached) {
        connection = nil
        url = nil
        state = nil
        self.method = method
        self.copy = copy
    }

    /// True for a copy made for ``HTTPResponse/deferred(_:)`` work.
    public var isDetached: Bool { copy != nil }

    /// A copy that owns its path, headers, query, body and address (a detached request is returned as is).
    func detached() -> HTTPRequest {
        guard copy == nil, let connection, let url, let state else { return self }
        let path = Array(UnsafeRawBufferPointer(start: url, count: strlen(url)))
        return HTTPRequest(
            method: method,
            copy: Detached(
                path: path,
                headers: Self.values(connection, .HEADER_KIND).map { ($0.name.lowercased(), $0.value ?? []) },
                query: Self.values(connection, .GET_ARGUMENT_KIND).map {
                    ($0.name, $0.value.map { String(decoding: $0, as: UTF8.self) })
                }, body: state.body, remoteAddress: remoteAddress))
    }

    /// Every value of `kind` on `connection`, in order.
    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: [UInt8]?)]
    {
        final class Sink {
            var values: [(name: String, value: [UInt8]?)] = []
        }
        let sink = Sink()
        let iterator: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
            guard let cls, let key else { return .YES }
            let sink = Unmanaged<Sink>.fromOpaque(cls).takeUnretainedValue()
            let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: valueSize)) }
            sink.values.append((name, bytes))
            return .YES
        }
        withExtendedLifetime(sink) {
            _ = MHD_get_connection_values_n(connection, kind, iterator, Unmanaged.passUnretained(sink).toOpaque())
        }
        return sink.values
    }

    /// The URL path as libmicrohttpd gives it: percent-decoded, without the query string. Allocates a `String`.
    public var path: String {
        if let copy { return String(decoding: copy.path, as: UTF8.self) }
        return String(cString: url!)
    }

    /// Calls `body` with the bytes of ``path`` (no NUL), without allocating; the pointer is valid only inside.
    @inlinable
    public func withPathBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let copy { return try copy.withPath(body) }
        return try body(UnsafeRawBufferPointer(start: url!, count: strlen(url!)))
    }

    /// The value of request header `name` (case-insensitive), or `nil` when absent. Repeated headers: the first.
    public func header(_ name: String) -> String? {
        if let copy {
            let lowered = name.lowercased()
            return copy.headers.first { $0.name == lowered }.map { String(decoding: $0.value, as: UTF8.self) }
        }
        return MHD_lookup_connection_value(connection!, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// Calls `body` with the bytes of request header `name` (case-insensitive), or `nil` when absent, without
    /// allocating; the pointer is valid only inside `body`. Repeated headers: the first.
    @inlinable
    public func withHeaderBytes<R>(_ name: StaticString, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        if let copy { return try copy.withHeader(name, body) }
        return try body(liveHeaderBytes(name))
    }

    /// A live request's header `name` in libmicrohttpd's connection memory (valid during the handler's call),
    /// `nil` when absent: not generic, so the inlinable ``withHeaderBytes(_:_:)`` calls it directly.
    @usableFromInline func liveHeaderBytes(_ name: StaticString) -> UnsafeRawBufferPointer? {
        precondition(name.hasPointerRepresentation, "withHeaderBytes needs a string literal name")
        guard let connection else { return nil }
        var found: UnsafePointer<CChar>? = nil
        var foundSize = 0
        let result = name.utf8Start.withMemoryRebound(to: CChar.self, capacity: name.utf8CodeUnitCount) {
            MHD_lookup_connection_value_n(connection, .HEADER_KIND, $0, name.utf8CodeUnitCount, &found, &foundSize)
        }
        guard result == .YES, let found else { return nil }
        return UnsafeRawBufferPointer(start: found, count: foundSize)
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
        if let copy {
            let lowered = name.lowercased()
            return copy.query.first { $0.name.lowercased() == lowered }.map { $0.value ?? "" }
        }
        var found: UnsafePointer<CChar>? = nil
        var foundSize = 0
        let present = name.withCString {
            MHD_lookup_connection_value_n(connection!, .GET_ARGUMENT_KIND, $0, strlen($0), &found, &foundSize)
        }
        guard present == .YES else { return nil }
        guard let found else { return "" }
        // Every decoded byte, a `%00` included (as the detached copy keeps them), never cut at the first NUL: a
        // value cut short would pass a length check it fails.
        return String(decoding: UnsafeRawBufferPointer(start: found, count: foundSize), as: UTF8.self)
    }

    /// The whole request body, at most the configured `maxBodyBytes`.
    public var body: [UInt8] { copy?.body ?? state!.body }

    /// The client's IP address as text (`"127.0.0.1"`, `"::1"`), computed on each call; `nil` if unknown.
    public var remoteAddress: String? {
        if let copy { return copy.remoteAddress }
        guard let info = cmhd_connection_info(connection!, .CONNECTION_INFO_CLIENT_ADDRESS),
            let address = info.pointee.client_addr
        else { return nil }
        return SocketAddress.text(of: address)
    }
}
