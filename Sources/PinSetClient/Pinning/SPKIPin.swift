import Crypto
import PinSetCore
import SwiftASN1

/// Computes pins (PROTOCOL §1) from certificates and public keys.
///
/// An SPKI pin is the SHA-256 of the *whole* DER `SubjectPublicKeyInfo` (algorithm identifier included), as
/// HPKP `pin-sha256`, TrustKit and OkHttp compute it. It equals what this openssl pipeline prints:
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
public enum SPKIPin {
    /// Why a certificate could not be read.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong with the bytes.
        public let description: String
    }

    /// The base64 SPKI pin of a DER certificate.
    /// - Throws: ``Error`` when the bytes are not a DER X.509 certificate.
    public static func sha256(ofCertificateDER der: some Collection<UInt8>) throws(Error) -> String {
        Base64.encode(try spkiDigest(ofCertificateDER: Array(der)).bytes)
    }

    /// The base64 pin of a DER `SubjectPublicKeyInfo`.
    public static func sha256(ofSPKIDER spki: some Collection<UInt8>) -> String {
        Base64.encode(SHA256.hash(data: Array(spki)))
    }

    /// The base64 certificate pin (``PinType/certificate``): SHA-256 of the whole DER certificate.
    public static func sha256(ofWholeCertificateDER der: some Collection<UInt8>) -> String {
        Base64.encode(SHA256.hash(data: Array(der)))
    }

    /// The exact DER bytes of the certificate's `SubjectPublicKeyInfo`, sliced from the certificate as sent
    /// (never re-encoded).
    /// - Throws: ``Error`` when the bytes are not a DER X.509 certificate.
    public static func spkiDER(ofCertificateDER der: [UInt8]) throws(Error) -> ArraySlice<UInt8> {
        do {
            let root = try DER.parse(der)
            guard case .constructed(let certificateNodes) = root.content,
                let tbs = certificateNodes.first(where: { _ in true }),
                case .constructed(let tbsNodes) = tbs.content
            else { throw Error(description: "the certificate is not a DER SEQUENCE holding a TBSCertificate") }
            var fields = Array(tbsNodes)
            // TBSCertificate: [0] version (optional), serialNumber, signature, issuer, validity, subject, spki, ...
            if let first = fields.first,
                first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
            {
                fields.removeFirst()
            }
            guard fields.count >= 6, fields[5].identifier == .sequence else {
                throw Error(description: "the certificate's TBSCertificate has no SubjectPublicKeyInfo")
            }
            return fields[5].encodedBytes
        } catch let error as Error {
            throw error
        } catch {
            throw Error(description: "the bytes are not a DER X.509 certificate")
        }
    }

    static func spkiDigest(ofCertificateDER der: [UInt8]) throws(Error) -> Digest32 {
        Digest32(SHA256.hash(data: try spkiDER(ofCertificateDER: der)))
    }
}

/// A SHA-256 value as four words, so that comparing two costs four integer compares.
struct Digest32: Hashable, Sendable {
    var a: UInt64, b: UInt64, c: UInt64, d: UInt64

    init(_ digest: SHA256.Digest) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: raw) }
        }
        (a, b, c, d) = words
    }

    init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        bytes.withUnsafeBytes { raw in
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: raw) }
        }
        (a, b, c, d) = words
    }

    var bytes: [UInt8] {
        var words = (a, b, c, d)
        return withUnsafeBytes(of: &words) { Array($0) }
    }
}
