#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The method of an HTTP request.
public enum HTTPMethod: Hashable, Sendable {
    /// `GET`
    case get
    /// `HEAD` (libmicrohttpd drops the body of the answer itself; answer it like `GET`).
    case head
    /// `POST`
    case post
    /// `PUT`
    case put
    /// `DELETE`
    case delete
    /// `PATCH`
    case patch
    /// `OPTIONS`
    case options
    /// Any other method, spelled as the client sent it.
    case other(String)

    /// The method's name as sent on the wire (`GET`, `HEAD`, ...).
    public var name: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .patch: "PATCH"
        case .options: "OPTIONS"
        case .other(let name): name
        }
    }

    /// Parses a NUL-terminated method name without allocating for the common methods.
    init(cString: UnsafePointer<CChar>) {
        let raw = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
        let count = strlen(cString)
        let bytes = UnsafeBufferPointer(start: raw, count: count)
        switch count {
        case 3 where bytes.elementsEqual("GET".utf8): self = .get
        case 3 where bytes.elementsEqual("PUT".utf8): self = .put
        case 4 where bytes.elementsEqual("HEAD".utf8): self = .head
        case 4 where bytes.elementsEqual("POST".utf8): self = .post
        case 5 where bytes.elementsEqual("PATCH".utf8): self = .patch
        case 6 where bytes.elementsEqual("DELETE".utf8): self = .delete
        case 7 where bytes.elementsEqual("OPTIONS".utf8): self = .options
        default: self = .other(String(cString: cString))
        }
    }
}
