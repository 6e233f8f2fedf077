import CPKCS11

extension PKCS11Token {
    /// The handles of the objects matching `template`, at most `limit`.
    func findObjects(_ session: CK_SESSION_HANDLE, _ template: PKCS11Template, limit: Int = 8) throws(PKCS11Error)
        -> [CK_OBJECT_HANDLE]
    {
        let functions = self.functions
        try PKCS11Call.check(
            template.withAttributes { functions.C_FindObjectsInit(session, $0, $1) }, "C_FindObjectsInit")
        var handles = [CK_OBJECT_HANDLE](repeating: 0, count: limit)
        var found = CK_ULONG(0)
        let result = functions.C_FindObjects(session, &handles, CK_ULONG(limit), &found)
        _ = functions.C_FindObjectsFinal(session)
        try PKCS11Call.check(result, "C_FindObjects")
        precondition(Int(found) <= limit, "C_FindObjects returned more handles than asked for")
        return Array(handles.prefix(Int(found)))
    }

    /// The value of one attribute, or `nil` when the object has none or will not show it (sensitive).
    func attribute(_ session: CK_SESSION_HANDLE, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE)
        throws(PKCS11Error) -> [UInt8]?
    {
        let functions = self.functions
        var query = CK_ATTRIBUTE(type: type, pValue: nil, ulValueLen: 0)
        let sized = functions.C_GetAttributeValue(session, object, &query, 1)
        if sized == CK_RV(CKR_ATTRIBUTE_SENSITIVE) || sized == CK_RV(CKR_ATTRIBUTE_TYPE_INVALID) { return nil }
        try PKCS11Call.check(sized, "C_GetAttributeValue")
        guard query.ulValueLen != CK_ULONG(bitPattern: -1) else { return nil }  // CK_UNAVAILABLE_INFORMATION
        precondition(query.ulValueLen < 1 << 20, "an attribute larger than 1 MiB")
        var value = [UInt8](repeating: 0, count: Int(query.ulValueLen))
        let read = value.withUnsafeMutableBytes { buffer -> CK_RV in
            query.pValue = buffer.baseAddress
            return functions.C_GetAttributeValue(session, object, &query, 1)
        }
        if read == CK_RV(CKR_ATTRIBUTE_SENSITIVE) || read == CK_RV(CKR_ATTRIBUTE_TYPE_INVALID) { return nil }
        try PKCS11Call.check(read, "C_GetAttributeValue")
        return Array(value.prefix(Int(query.ulValueLen)))
    }

    /// A `CK_BBOOL` attribute; `nil` when absent.
    func flag(_ session: CK_SESSION_HANDLE, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE)
        throws(PKCS11Error) -> Bool?
    {
        try attribute(session, object, type).map { $0.first.map { $0 != 0 } ?? false }
    }

    /// A `CK_ULONG` attribute (class, key type); `nil` when absent.
    func ulong(_ session: CK_SESSION_HANDLE, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE)
        throws(PKCS11Error) -> CK_ULONG?
    {
        guard let bytes = try attribute(session, object, type), bytes.count == MemoryLayout<CK_ULONG>.size else {
            return nil
        }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: CK_ULONG.self) }
    }
}
