internal import COpenSSL

/// Parses certificates and public keys given as PEM, base64 DER or raw DER.
public enum CertificateParser {
    /// Parses one certificate or a bundle of them.
    ///
    /// Accepts PEM (one or many `CERTIFICATE` blocks, text between blocks ignored), base64 of DER (whitespace
    /// allowed), or raw DER (one or several concatenated certificates). A PEM block of another kind
    /// (a private key, say) is refused rather than skipped.
    public static func parse(_ data: [UInt8]) throws(CryptoError) -> [ParsedCertificate] {
        if PEMText.containsPEM(data) {
            let blocks = try PEMText.blocks(data)
            var result = [ParsedCertificate]()
            for (index, block) in blocks.enumerated() {
                guard ["CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE"].contains(block.label) else {
                    throw CryptoError(
                        .invalidCertificate, "PEM block \(index + 1) is a \(block.label), not a CERTIFICATE")
                }
                let certificates = try parseDER(block.der)
                guard certificates.count == 1 else {
                    throw CryptoError(
                        .invalidCertificate, "PEM block \(index + 1) does not hold exactly one certificate")
                }
                result.append(contentsOf: certificates)
            }
            return result
        }
        if let der = PEMText.base64Decode(data) {
            return try parseDER(der)
        }
        return try parseDER(data)
    }

    /// The SubjectPublicKeyInfo DER of a public key given as PEM (`-----BEGIN PUBLIC KEY-----`), base64 DER or
    /// raw DER. For a certificate use ``parse(_:)`` and its ``ParsedCertificate/spkiDER``.
    public static func publicKeySPKI(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        var der = data
        if PEMText.containsPEM(data) {
            let blocks = try PEMText.blocks(data)
            guard blocks.count == 1, blocks[0].label == "PUBLIC KEY" else {
                throw CryptoError(.invalidPEM, "expected exactly one PEM block labelled PUBLIC KEY")
            }
            der = blocks[0].der
        } else if let decoded = PEMText.base64Decode(data) {
            der = decoded
        }
        guard !der.isEmpty else { throw CryptoError(.invalidPEM, "the public key is empty") }
        let key: OpaquePointer = try der.withUnsafeBufferPointer { buffer throws(CryptoError) in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else {
                _ = OpenSSLCall.drainErrors()
                throw CryptoError(.invalidPEM, "the bytes are not a DER SubjectPublicKeyInfo public key")
            }
            guard cursor == buffer.baseAddress! + buffer.count else {
                EVP_PKEY_free(key)
                throw CryptoError(.invalidPEM, "trailing bytes after the public key")
            }
            return key
        }
        defer { EVP_PKEY_free(key) }
        return try OpenSSLCall.der("i2d_PUBKEY") { i2d_PUBKEY(key, $0) }
    }

    /// Parses one or more concatenated DER certificates.
    private static func parseDER(_ der: [UInt8]) throws(CryptoError) -> [ParsedCertificate] {
        guard !der.isEmpty else { throw CryptoError(.invalidCertificate, "the certificate data is empty") }
        var result = [ParsedCertificate]()
        var offset = 0
        while offset < der.count {
            let (certificate, consumed): (OpaquePointer, Int) = try der.withUnsafeBufferPointer {
                buffer throws(CryptoError) in
                let start = buffer.baseAddress! + offset
                var cursor: UnsafePointer<UInt8>? = start
                guard let certificate = d2i_X509(nil, &cursor, buffer.count - offset) else {
                    _ = OpenSSLCall.drainErrors()
                    throw CryptoError(
                        .invalidCertificate,
                        result.isEmpty
                            ? "the data is not a PEM, base64 DER or DER X.509 certificate"
                            : "junk after certificate \(result.count)")
                }
                return (certificate, cursor! - start)
            }
            defer { X509_free(certificate) }
            guard consumed > 0 else { throw CryptoError(.invalidCertificate, "d2i_X509 consumed nothing") }
            offset += consumed
            result.append(try describe(certificate))
        }
        return result
    }

    /// The parts of a decoded certificate (an `X509`, which the caller keeps and frees): no second decoding.
    static func describe(_ certificate: OpaquePointer) throws(CryptoError) -> ParsedCertificate {
        let der = try OpenSSLCall.der("i2d_X509") { i2d_X509(certificate, $0) }
        let publicKey = try OpenSSLCall.nonNull(
            X509_get_X509_PUBKEY(certificate), .invalidCertificate, "X509_get_X509_PUBKEY")
        let spki = try OpenSSLCall.der("i2d_X509_PUBKEY") { i2d_X509_PUBKEY(publicKey, $0) }
        let subjectBytes = try OpenSSLCall.collectingBIO { bio throws(CryptoError) in
            guard let name = X509_get_subject_name(certificate) else { return }
            guard X509_NAME_print_ex(bio, name, 0, UInt(pinset_xn_flag_rfc2253())) >= 0 else {
                throw CryptoError(.invalidCertificate, "cannot print the subject name: \(OpenSSLCall.drainErrors())")
            }
        }
        return ParsedCertificate(
            der: der, spkiDER: spki, subject: String(decoding: subjectBytes, as: UTF8.self),
            notAfter: notAfter(certificate))
    }
}
