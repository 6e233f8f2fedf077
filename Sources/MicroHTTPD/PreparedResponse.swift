internal import CMicroHTTPD

/// A response built once and queued many times, from many threads: the hot path of a server.
///
/// libmicrohttpd copies the body when the response is created and reference-counts the response, so
/// queueing the same instance concurrently is safe and allocates nothing. Keep it alive (e.g. in a cache)
/// for as long as it is served; it is freed when the last Swift reference goes.
public final class PreparedResponse: @unchecked Sendable {
    /// The HTTP status code.
    public let status: Int
    /// The libmicrohttpd response; immutable after init (MHD's own refcount is mutex-protected).
    let handle: OpaquePointer

    /// Builds the response: `status`, `headers` in order, and a copy of `body`.
    ///
    /// - Parameters:
    ///   - status: the HTTP status code (100...599).
    ///   - headers: name/value pairs. `Content-Length` is computed from `body` and any given one is ignored.
    ///   - body: the body bytes (copied). For `HEAD` requests libmicrohttpd sends the headers only.
    /// - Precondition: header names and values contain no CR, LF or NUL; `status` is in 100...599.
    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        do {
            self.handle = try Self.makeHandle(status: status, headers: headers, body: body)
        } catch {
            preconditionFailure("PreparedResponse: \(error)")
        }
        self.status = status
    }

    /// Builds the response over bytes that `owner` holds, without copying them: libmicrohttpd keeps `owner`
    /// alive (one retain) until it has destroyed the response, i.e. after the last connection sending it is done.
    ///
    /// Use it to serve bytes that are already stored once (a cache of documents) without a second copy.
    ///
    /// - Parameters:
    ///   - status: the HTTP status code (100...599).
    ///   - headers: name/value pairs, as in ``init(status:headers:body:)``.
    ///   - body: the body bytes. They must lie inside memory that `owner` owns and never changes.
    ///   - owner: the object that owns `body`. libmicrohttpd releases it from one of its threads.
    /// - Warning: the bytes must stay valid and unchanged for as long as `owner` lives; anything else makes
    ///   libmicrohttpd send freed or torn memory.
    /// - Precondition: as ``init(status:headers:body:)``.
    public init(status: Int, headers: [(String, String)], body: UnsafeRawBufferPointer, owner: AnyObject) {
        do {
            self.handle = try Self.makeHandle(status: status, headers: headers) {
                Self.create(over: body, owner: owner)
            }
        } catch {
            preconditionFailure("PreparedResponse: \(error)")
        }
        self.status = status
    }

    /// Builds a resource's answer over `owner`'s bytes as ``init(status:headers:body:owner:)`` does (no body
    /// when `owner` is `nil`): `Content-Type` (when given), `ETag`, `Cache-Control`, then `extraHeaders`. Nothing
    /// is allocated on the Swift side but this object: the values go to libmicrohttpd as C strings (the read
    /// cache's cold answers, ReadCache's `ResponseTemplate`).
    /// - Precondition: as ``init(status:headers:body:)``.
    package init(
        status: Int, contentType: String?, etag: UnsafePointer<CChar>, cacheControl: String,
        extraHeaders: [(String, String)], body: UnsafeRawBufferPointer?, owner: AnyObject?
    ) {
        precondition((100...599).contains(status), "PreparedResponse: status \(status)")
        let created =
            if let owner, let body {
                Self.create(over: body, owner: owner)
            } else {
                MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
            }
        guard let response = created else { preconditionFailure("PreparedResponse: out of memory") }
        func add(_ name: String, _ value: UnsafePointer<CChar>) -> Bool {
            name.withCString { MHD_add_response_header(response, $0, value) == .YES }
        }
        func add(_ name: String, _ value: String) -> Bool { value.withCString { add(name, $0) } }
        var added = contentType.map { add("Content-Type", $0) } ?? true
        added = added && add("ETag", etag) && add("Cache-Control", cacheControl)
        for (name, value) in extraHeaders where added { added = add(name, value) }
        guard added else {
            MHD_destroy_response(response)
            preconditionFailure("PreparedResponse: a header was rejected (CR or LF in it?)")
        }
        self.handle = response
        self.status = status
    }

    /// A libmicrohttpd response over `body`, which `owner` holds: libmicrohttpd retains `owner` until it destroys
    /// the response. `nil` when out of memory.
    private static func create(over body: UnsafeRawBufferPointer, owner: AnyObject) -> OpaquePointer? {
        let retained = Unmanaged<AnyObject>.passRetained(owner).toOpaque()
        // On failure libmicrohttpd does not call the callback: release here.
        guard
            let response = MHD_create_response_from_buffer_with_free_callback_cls(
                body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), releaseOwner, retained)
        else {
            Unmanaged<AnyObject>.fromOpaque(retained).release()
            return nil
        }
        return response
    }

    /// Called by libmicrohttpd once the response is destroyed: drops the retain taken on the body's owner.
    private static let releaseOwner: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<AnyObject>.fromOpaque(cls).release()
    }

    /// Creates a libmicrohttpd response owning a copy of `body` with `headers`; the caller destroys it.
    static func makeHandle(status: Int, headers: [(String, String)], body: [UInt8]) throws(HTTPServerError)
        -> OpaquePointer
    {
        try makeHandle(status: status, headers: headers) {
            body.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(
                    raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
    }

    /// Adds `headers` to the response `create` makes (`nil`: out of memory); the caller destroys it.
    private static func makeHandle(
        status: Int, headers: [(String, String)], create: () -> OpaquePointer?
    ) throws(HTTPServerError) -> OpaquePointer {
        guard (100...599).contains(status) else { throw HTTPServerError(.invalidConfiguration("status \(status)")) }
        let response = try MHDCall.nonNull(create(), .callFailed("MHD_create_response_from_buffer"))
        for (name, value) in headers where !isContentLength(name) {
            do throws(HTTPServerError) {
                try MHDCall.check(MHD_add_response_header(response, name, value), .headerRejected(name))
            } catch {
                MHD_destroy_response(response)
                throw error
            }
        }
        return response
    }

    private static func isContentLength(_ name: String) -> Bool {
        name.utf8.count == 14 && name.lowercased() == "content-length"
    }

    deinit {
        MHD_destroy_response(handle)
    }
}
