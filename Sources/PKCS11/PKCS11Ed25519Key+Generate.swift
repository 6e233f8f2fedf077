import CPKCS11

extension PKCS11Ed25519Key {
    /// Generates an Ed25519 key pair on `token` (`CKM_EC_EDWARDS_KEY_PAIR_GEN`): a token private key that signs,
    /// is sensitive and is not extractable, and a token public key, both with `label` and `id`.
    ///
    /// - Throws: ``PKCS11Error/Code/objectExists`` when a key with this label or id is already there (nothing is
    ///   overwritten), or the module's refusal.
    public static func generate(on token: PKCS11Token, label: String, id: [UInt8]) throws(PKCS11Error)
        -> PKCS11Ed25519Key
    {
        precondition(!id.isEmpty, "a generated key gets an id")
        try token.withSession { session, _ throws(PKCS11Error) in
            for template in [
                template(CK_OBJECT_CLASS(CKO_PRIVATE_KEY), label: label, id: nil),
                template(CK_OBJECT_CLASS(CKO_PRIVATE_KEY), label: nil, id: id),
            ]
            where try !token.findObjects(session, template).isEmpty {
                throw PKCS11Error(
                    .objectExists,
                    "token \"\(token.label)\" already has a private key \(name(label: label, id: id)) (same label or id); choose another object= or id="
                )
            }
            // SoftHSM 2.6 takes the curve as an OID; PKCS#11 3.0 also allows the printable name. Try both.
            var lastError: PKCS11Error?
            for parameters in [EdwardsCurve.oid, EdwardsCurve.printableName] {
                let result = generatePair(token, session, label: label, id: id, parameters: parameters)
                if result == CK_RV(CKR_OK) { return }
                lastError = PKCS11Call.error(result, "generating an Ed25519 key pair on token \"\(token.label)\"")
                let curveRefused = [CKR_ATTRIBUTE_VALUE_INVALID, CKR_CURVE_NOT_SUPPORTED, CKR_DOMAIN_PARAMS_INVALID]
                    .map { CK_RV($0) }.contains(result)
                if !curveRefused { break }
            }
            throw lastError!
        }
        return try PKCS11Ed25519Key(token: token, label: label, id: id)
    }

    private static func generatePair(
        _ token: PKCS11Token, _ session: CK_SESSION_HANDLE, label: String, id: [UInt8], parameters: [UInt8]
    ) -> CK_RV {
        var publicTemplate = PKCS11Template()
        publicTemplate.add(CK_ATTRIBUTE_TYPE(CKA_TOKEN), bool: true)
        publicTemplate.add(CK_ATTRIBUTE_TYPE(CKA_VERIFY), bool: true)
        publicTemplate.add(CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS), bytes: parameters)
        publicTemplate.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), bytes: Array(label.utf8))
        publicTemplate.add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
        var privateTemplate = PKCS11Template()
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_TOKEN), bool: true)
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), bool: true)
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_SIGN), bool: true)
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_SENSITIVE), bool: true)
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE), bool: false)
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), bytes: Array(label.utf8))
        privateTemplate.add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
        let functions = token.functions
        var mechanism = CK_MECHANISM(
            mechanism: CK_MECHANISM_TYPE(CKM_EC_EDWARDS_KEY_PAIR_GEN), pParameter: nil, ulParameterLen: 0)
        var publicHandle = CK_OBJECT_HANDLE(0)
        var privateHandle = CK_OBJECT_HANDLE(0)
        return publicTemplate.withAttributes { publicAttributes, publicCount in
            privateTemplate.withAttributes { privateAttributes, privateCount in
                functions.C_GenerateKeyPair(
                    session, &mechanism, publicAttributes, publicCount, privateAttributes, privateCount,
                    &publicHandle, &privateHandle)
            }
        }
    }
}
