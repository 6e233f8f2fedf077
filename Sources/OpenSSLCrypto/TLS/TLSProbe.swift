internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Collects the certificate chain a TLS server presents, with OpenSSL, and nothing else.
///
/// - Warning: the chain is NOT verified. The probe exists to compare what a host serves with pins: trust is
///   decided by the pins, never by this handshake. Never use it to carry data.
public enum TLSProbe {
    /// Connects to `address`, completes a TLS handshake with SNI `serverName` (none when `nil`) and returns the
    /// certificates the peer presented, leaf first, described from the handshake's own decoding (OpenSSL 3
    /// takes ~0.13 ms to decode one again). Sends no application data; closes at once.
    ///
    /// - Parameters:
    ///   - address: a numeric address and port (see ``AddressResolver``).
    ///   - serverName: the SNI name; `nil` sends none (for a bare address).
    ///   - timeout: seconds for the connection and the handshake together. Default 5.
    /// - Throws: ``TLSProbeError`` with ``TLSProbeErrorCode/connectFailed``,
    ///   ``TLSProbeErrorCode/connectTimeout`` (no TCP connection in time), ``TLSProbeErrorCode/handshakeTimeout``
    ///   (connected, but no TLS answer in time), ``TLSProbeErrorCode/handshakeFailed`` or
    ///   ``TLSProbeErrorCode/noCertificate``.
    public static func presentedChain(to address: ProbeAddress, serverName: String?, timeout: Double = 5)
        throws(TLSProbeError) -> [ParsedCertificate]
    {
        precondition(timeout > 0, "a probe needs a positive timeout")
        let deadline = Deadline(seconds: timeout)
        return try withoutSIGPIPE { () throws(TLSProbeError) in
            let socket = try ProbeSocket.connect(address, deadline: deadline)
            let connection = try TLSConnection(fd: socket.fd, serverName: serverName, peer: address)
            try connection.handshake(deadline: deadline, wait: socket.wait)
            return try connection.peerChain()
        }
    }

    /// Runs `body` with SIGPIPE blocked on this thread. OpenSSL writes to the socket with write(2): a peer
    /// that resets the connection mid-handshake would otherwise raise SIGPIPE, whose default action ends the
    /// process. A SIGPIPE raised meanwhile is consumed before the mask is restored.
    private static func withoutSIGPIPE<R>(_ body: () throws(TLSProbeError) -> R) throws(TLSProbeError) -> R {
        #if canImport(Glibc)
            var pipe = sigset_t()
            sigemptyset(&pipe)
            sigaddset(&pipe, SIGPIPE)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &pipe, &previous)
            defer {
                var pending = sigset_t()
                sigpending(&pending)
                if sigismember(&pending, SIGPIPE) == 1 {
                    var now = timespec()
                    _ = sigtimedwait(&pipe, nil, &now)
                }
                pthread_sigmask(SIG_SETMASK, &previous, nil)
            }
        #endif
        return try body()
    }
}

/// A point on the monotonic clock.
struct Deadline {
    private let end: Double

    init(seconds: Double) { end = Self.now() + seconds }

    /// Milliseconds left, at least 0.
    var remainingMilliseconds: Int32 { Int32(max(0, min((end - Self.now()) * 1000, Double(Int32.max)))) }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// An owned, non-blocking TCP socket; closed in `deinit`.
final class ProbeSocket {
    let fd: Int32
    private let peer: ProbeAddress

    private init(fd: Int32, peer: ProbeAddress) {
        self.fd = fd
        self.peer = peer
    }

    deinit { close(fd) }

    /// A connected socket to `address`, or a typed error.
    static func connect(_ address: ProbeAddress, deadline: Deadline) throws(TLSProbeError) -> ProbeSocket {
        var hints = AddressResolver.streamHints(flags: AI_NUMERICHOST | AI_NUMERICSERV)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.ip, String(address.port), &hints, &list) == 0, let entry = list else {
            throw TLSProbeError(.connectFailed, "\(address) is not a numeric address")
        }
        defer { freeaddrinfo(entry) }
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        let fd = socket(entry.pointee.ai_family, type, 0)
        guard fd >= 0 else { throw TLSProbeError(.connectFailed, "socket() failed: \(errnoText())") }
        let socket = ProbeSocket(fd: fd, peer: address)
        #if !canImport(Glibc)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
        #endif
        if Glibc.connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                throw TLSProbeError(.connectFailed, "cannot connect to \(address): \(errnoText())")
            }
            try socket.wait(
                forWriting: true, deadline: deadline, what: "connecting to \(address)",
                timeout: TLSProbeError(
                    .connectTimeout, "connecting to \(address): the connection was not accepted in time"))
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else {
                throw TLSProbeError(.connectFailed, "cannot connect to \(address): \(String(cString: strerror(error)))")
            }
        }
        return socket
    }

    /// Waits until the socket is readable (or writable), or throws `timeout` at the deadline.
    func wait(forWriting: Bool, deadline: Deadline, what: String, timeout: TLSProbeError) throws(TLSProbeError) {
        while true {
            var entry = pollfd(fd: fd, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
            let ready = poll(&entry, 1, deadline.remainingMilliseconds)
            if ready > 0 { return }
            if ready == 0 { throw timeout }
            guard errno == EINTR else { throw TLSProbeError(.connectFailed, "\(what): poll failed: \(errnoText())") }
        }
    }
}

/// The one OpenSSL client context every probe's `SSL` is made from: creating one costs OpenSSL 3 about 0.3 ms of
/// CPU, a quarter of a probe's handshake. Configured once, in `init`, and never changed after, so that threads may
/// share it (OpenSSL's rule for an `SSL_CTX`). No verification (the probe collects the chain; pins decide trust)
/// and no session cache: a resumed session would carry no certificates.
final class ProbeContext: @unchecked Sendable {
    static let shared = ProbeContext()
    /// The `SSL_CTX`; `nil` if OpenSSL could not make it (every probe then fails with ``failure``).
    let handle: OpaquePointer?
    /// OpenSSL's reason when ``handle`` is `nil`.
    let failure: String

    private init() {
        handle = SSL_CTX_new(TLS_client_method())
        failure = handle == nil ? OpenSSLCall.drainErrors() : ""
        guard let handle else { return }
        SSL_CTX_set_verify(handle, SSL_VERIFY_NONE, nil)
        _ = SSL_CTX_ctrl(handle, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
    }

    deinit {
        SSL_CTX_free(handle)
    }
}

/// An owned OpenSSL client connection over a socket; frees its `SSL` in `deinit`.
final class TLSConnection {
    private let ssl: OpaquePointer
    private let peer: ProbeAddress
    private let serverName: String?

    init(fd: Int32, serverName: String?, peer: ProbeAddress) throws(TLSProbeError) {
        self.peer = peer
        self.serverName = serverName
        guard let context = ProbeContext.shared.handle else {
            throw TLSProbeError(.handshakeFailed, "SSL_CTX_new failed: \(ProbeContext.shared.failure)")
        }
        guard let ssl = SSL_new(context) else {
            throw TLSProbeError(.handshakeFailed, "SSL_new failed: \(OpenSSLCall.drainErrors())")
        }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else {
            throw TLSProbeError(.handshakeFailed, "SSL_set_fd failed: \(OpenSSLCall.drainErrors())")
        }
        if let serverName, pinset_ssl_set_sni(ssl, serverName) != 1 {
            throw TLSProbeError(.handshakeFailed, "cannot set SNI \(serverName): \(OpenSSLCall.drainErrors())")
        }
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
    }

    /// Drives the handshake to completion on the non-blocking socket, waiting with `wait` in between.
    func handshake(
        deadline: Deadline, wait: (Bool, Deadline, String, TLSProbeError) throws(TLSProbeError) -> Void
    ) throws(TLSProbeError) {
        let what = "TLS handshake with \(peer)"
        let timeout = TLSProbeError(
            .handshakeTimeout,
            "\(what): connected, but no TLS answer\(serverName.map { " for \($0)" } ?? "") in time")
        while true {
            let result = SSL_do_handshake(ssl)
            if result == 1 { return }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: try wait(false, deadline, what, timeout)
            case SSL_ERROR_WANT_WRITE: try wait(true, deadline, what, timeout)
            case SSL_ERROR_SYSCALL:
                _ = OpenSSLCall.drainErrors()
                throw TLSProbeError(
                    .handshakeFailed, "TLS handshake with \(peer) failed: connection closed by the peer")
            default:
                throw TLSProbeError(.handshakeFailed, "TLS handshake with \(peer) failed: \(OpenSSLCall.drainErrors())")
            }
        }
    }

    /// The certificates the peer presented, leaf first, described from the `X509`s the handshake decoded.
    func peerChain() throws(TLSProbeError) -> [ParsedCertificate] {
        guard let stack = SSL_get_peer_cert_chain(ssl) else {
            throw TLSProbeError(.noCertificate, "\(peer) presented no certificate")
        }
        var chain = [ParsedCertificate]()
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let raw = OPENSSL_sk_value(stack, index) else { continue }
            guard let certificate = try? CertificateParser.describe(OpaquePointer(raw)) else {
                throw TLSProbeError(.noCertificate, "\(peer) presented a certificate OpenSSL cannot read")
            }
            chain.append(certificate)
        }
        guard !chain.isEmpty else { throw TLSProbeError(.noCertificate, "\(peer) presented no certificate") }
        return chain
    }
}

extension ProbeSocket {
    /// `wait(forWriting:deadline:what:timeout:)` as a closure for ``TLSConnection/handshake(deadline:wait:)``.
    var wait: (Bool, Deadline, String, TLSProbeError) throws(TLSProbeError) -> Void {
        { (writing, deadline, what, timeout) throws(TLSProbeError) in
            try self.wait(forWriting: writing, deadline: deadline, what: what, timeout: timeout)
        }
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }
