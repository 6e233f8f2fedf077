import PinSetCore

/// One certificate of a chain a host served, reduced to its two pins.
public struct ServedCertificate: Codable, Sendable, Hashable {
    /// 0 for the leaf, then up the chain as the host sent it.
    public var position: Int
    /// The subject name (RFC 2253).
    public var subject: String
    /// The `spki` pin: base64 SHA-256 of the SubjectPublicKeyInfo.
    public var spki: String
    /// The `certificate` pin: base64 SHA-256 of the whole DER certificate.
    public var certificate: String

    /// Creates a served certificate.
    public init(position: Int, subject: String, spki: String, certificate: String) {
        self.position = position
        self.subject = subject
        self.spki = spki
        self.certificate = certificate
    }

    /// Whether `pin` names this certificate (by key or by whole certificate).
    public func matches(_ pin: Pin) -> Bool {
        pin.type == .spki ? pin.sha256 == spki : pin.sha256 == certificate
    }
}
