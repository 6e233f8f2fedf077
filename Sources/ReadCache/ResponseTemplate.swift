import MicroHTTPD

/// The headers a resource's `200` and `304` share, and how both are built over its stored bytes: one recipe for
/// ``CachedResource`` and ``ResourceIndex``.
///
/// Building an answer allocates nothing on the Swift side beyond the ``PreparedResponse`` itself (the header
/// values go to libmicrohttpd as C strings, the ETag straight from the stored bytes; libmicrohttpd copies each
/// line): with a bounded response cache, a million-host server builds answers on its request path.
struct ResponseTemplate: Sendable {
    /// The `200`'s `Content-Type`.
    let contentType: String
    /// The `Cache-Control` of both answers.
    let cacheControl: String
    /// Sent with both answers after those.
    let extraHeaders: [(String, String)]

    /// The `200` (`304` when `notModified`) of `bytes`.
    func response(_ bytes: ResourceBytes, notModified: Bool) -> PreparedResponse {
        notModified ? self.notModified(bytes) : ok(bytes)
    }

    /// The `200`: `Content-Type`, `ETag`, `Cache-Control` and the stored body, not copied (the response keeps
    /// `bytes` alive until libmicrohttpd destroys it).
    func ok(_ bytes: ResourceBytes) -> PreparedResponse {
        bytes.withBody { body in
            bytes.withETagCString { etag in
                PreparedResponse(
                    status: 200, contentType: contentType, etag: etag, cacheControl: cacheControl,
                    extraHeaders: extraHeaders, body: body, owner: bytes)
            }
        }
    }

    /// The `304`: `ETag` and `Cache-Control`, no body.
    ///
    /// - Note: libmicrohttpd 0.9.75 adds `Content-Length` to every response, so this `304` says
    ///   `Content-Length: 0`, where RFC 9110 §8.6 wants none or the `200`'s length. The `200`'s length was tried
    ///   (a response built over the `200`'s bytes, which libmicrohttpd counts but does not send): common HTTP
    ///   parsers that do not special-case `304` (wrk's http_parser among them) then wait for 700 bytes that never
    ///   come, and the `304` benchmark fell to 0 requests/s. A later libmicrohttpd omits it (`MHD_RF_HEAD_ONLY_RESPONSE`).
    func notModified(_ bytes: ResourceBytes) -> PreparedResponse {
        bytes.withETagCString { etag in
            PreparedResponse(
                status: 304, contentType: nil, etag: etag, cacheControl: cacheControl, extraHeaders: extraHeaders,
                body: nil, owner: nil)
        }
    }
}
