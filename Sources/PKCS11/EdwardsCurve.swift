/// The encodings PKCS#11 uses for Ed25519 keys (PKCS#11 3.0 §2.3.10): `CKA_EC_PARAMS` names the curve either by
/// OID or by printable string, and `CKA_EC_POINT` holds the 32-byte key bare or as a DER OCTET STRING.
enum EdwardsCurve {
    /// DER of OID 1.3.101.112 (id-Ed25519, RFC 8410), what SoftHSM 2.6 expects in `CKA_EC_PARAMS`.
    static let oid: [UInt8] = [0x06, 0x03, 0x2B, 0x65, 0x70]
    /// DER PrintableString "edwards25519", the other form PKCS#11 3.0 allows.
    static let printableName: [UInt8] = [0x13, 0x0C] + Array("edwards25519".utf8)

    /// Whether `parameters` name edwards25519 in either form.
    static func isEd25519(parameters: [UInt8]) -> Bool { parameters == oid || parameters == printableName }

    /// The raw 32-byte key of a `CKA_EC_POINT`: DER OCTET STRING `04 20 …` or the bare 32 bytes.
    static func rawPoint(_ point: [UInt8]) -> [UInt8]? {
        if point.count == 34, point[0] == 0x04, point[1] == 0x20 { return Array(point[2...]) }
        return point.count == 32 ? point : nil
    }
}
