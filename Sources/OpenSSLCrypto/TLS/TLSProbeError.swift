import CodedErrors

/// Why a TLS probe got no chain. Compare `code`, not the message.
public typealias TLSProbeError = CodedError<TLSProbeErrorCode>

/// The kind of failure.
public enum TLSProbeErrorCode: String, ErrorCode {
    /// The name did not resolve (or resolved to no usable address).
    case dnsFailure
    /// The TCP connection was refused or failed.
    case connectFailed
    /// The TCP connection was not accepted in time (no SYN-ACK: a host that is down, a firewall that drops).
    /// Nothing listens for any name at that address.
    case connectTimeout
    /// The TCP connection was made but the TLS handshake did not finish in time: the peer, or whatever it
    /// routes the server name to, did not answer this ClientHello.
    case handshakeTimeout
    /// The TLS handshake failed.
    case handshakeFailed
    /// The handshake finished but the peer presented no certificate.
    case noCertificate
}
