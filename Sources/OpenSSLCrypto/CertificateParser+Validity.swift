internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CertificateParser {
    /// The `notAfter` of a decoded certificate (an `X509`), in seconds since 1970 (UTC), or `nil` if it cannot be
    /// read (``ParsedCertificate/notAfter``).
    static func notAfter(_ certificate: OpaquePointer) -> Int64? {
        guard let time = X509_get0_notAfter(certificate) else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }

    /// Whether a DER certificate's issuer name equals its subject name (a root, or self-signed).
    public static func isSelfIssued(der: [UInt8]) -> Bool {
        withCertificate(der) { certificate in
            guard let issuer = X509_get_issuer_name(certificate), let subject = X509_get_subject_name(certificate)
            else { return false }
            return X509_NAME_cmp(issuer, subject) == 0
        } ?? false
    }

    private static func withCertificate<R>(_ der: [UInt8], _ body: (OpaquePointer) -> R?) -> R? {
        guard !der.isEmpty else { return nil }
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate else {
            _ = OpenSSLCall.drainErrors()
            return nil
        }
        defer { X509_free(certificate) }
        return body(certificate)
    }
}
