internal import CMicroHTTPD

/// Why an ``HTTPServer`` could not start or a libmicrohttpd call failed.
public struct HTTPServerError: Error, CustomStringConvertible, Equatable {
    /// What went wrong; tests and callers compare this, never ``description``.
    public enum Code: Hashable, Sendable {
        /// `bindAddress` is not an IPv4 or IPv6 literal.
        case invalidBindAddress(String)
        /// A configuration value is out of range (the associated value names the field).
        case invalidConfiguration(String)
        /// libmicrohttpd could not listen on this address and port (in use, not local, no permission).
        case bindFailed(String, UInt16)
        /// libmicrohttpd refused a call (the associated value names the C function).
        case callFailed(String)
        /// A response header was rejected (CR/LF in it, or a header libmicrohttpd manages itself).
        case headerRejected(String)
    }

    /// What went wrong.
    public let code: Code

    /// Creates an error with `code`.
    public init(_ code: Code) { self.code = code }

    /// A message that tells the operator what to fix.
    public var description: String {
        switch code {
        case .invalidBindAddress(let address):
            return "bind address '\(address)' is not an IPv4 or IPv6 literal (use e.g. 127.0.0.1, 0.0.0.0, ::1 or ::)"
        case .invalidConfiguration(let field):
            return "HTTP server configuration field '\(field)' is out of range"
        case .bindFailed(let address, let port):
            return "cannot listen on \(address) port \(port): the port may be in use, the address not local, "
                + "or a port below 1024 may need privileges"
        case .callFailed(let function):
            return "libmicrohttpd call \(function) failed"
        case .headerRejected(let name):
            return "response header '\(name)' was rejected: no CR/LF allowed, and Content-Length is set automatically"
        }
    }
}

/// The one place where libmicrohttpd return codes become Swift errors.
enum MHDCall {
    /// Throws `code` unless `result` is `MHD_YES`.
    @inline(__always)
    static func check(_ result: MHD_Result, _ code: @autoclosure () -> HTTPServerError.Code) throws(HTTPServerError) {
        if result != .YES { throw HTTPServerError(code()) }
    }

    /// Returns `value`, or throws `code` when the C call returned NULL.
    @inline(__always)
    static func nonNull<T>(_ value: T?, _ code: @autoclosure () -> HTTPServerError.Code) throws(HTTPServerError) -> T {
        guard let value else { throw HTTPServerError(code()) }
        return value
    }
}
