import CPKCS11
import Locking

/// An Ed25519 private key that lives on a PKCS#11 token and signs there (`CKM_EDDSA`, one part: `C_Sign`).
/// The private key never leaves the token; this object holds its public key and how to find it again.
///
/// Thread-safe: each signature runs on a session of the token's pool (``PKCS11Token``). After a token reset the
/// key is found again by label and id, and used only if its public key is still the one it was opened with.
public final class PKCS11Ed25519Key: @unchecked Sendable {
    /// The token holding the key.
    public let token: PKCS11Token
    /// `CKA_LABEL` the key was found by (`object=` in the URI), if any.
    public let label: String?
    /// `CKA_ID` the key was found by (`id=` in the URI), if any.
    public let id: [UInt8]?
    /// The raw 32-byte Ed25519 public key, read off the token's public key object.
    public let publicKey: [UInt8]
    /// `CKA_EXTRACTABLE` of the private key: whether the token would hand it out wrapped. Should be `false`.
    public let isExtractable: Bool
    /// `CKA_SENSITIVE` of the private key: whether its value is hidden. Should be `true`.
    public let isSensitive: Bool
    private let cachedHandle = Locked<(epoch: Int, handle: CK_OBJECT_HANDLE)?>(nil)

    /// Opens the Ed25519 key pair with `label` and/or `id` on `token`.
    /// - Throws: ``PKCS11Error/Code/objectNotFound``, ``PKCS11Error/Code/objectAmbiguous``,
    ///   ``PKCS11Error/Code/wrongKeyType``, or the token's errors.
    public init(token: PKCS11Token, label: String?, id: [UInt8]?) throws(PKCS11Error) {
        precondition(label != nil || id != nil, "a key is found by its label, its id, or both")
        self.token = token
        self.label = label
        self.id = id
        let name = Self.name(label: label, id: id)
        let found = try token.withSession {
            session, epoch throws(PKCS11Error) -> (CK_OBJECT_HANDLE, [UInt8], Bool, Bool, Int) in
            let handle = try Self.privateKey(token, session, label: label, id: id)
            let keyType = try token.ulong(session, handle, CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE))
            guard keyType == CK_ULONG(CKK_EC_EDWARDS) else {
                throw PKCS11Error(
                    .wrongKeyType,
                    "the key \(name) on token \"\(token.label)\" is not an Ed25519 key (CKA_KEY_TYPE 0x\(String(keyType ?? 0, radix: 16))); create one with `pinset keygen --pkcs11 URI`"
                )
            }
            let publicKey = try Self.publicKey(token, session, label: label, id: id, name: name)
            let extractable = try token.flag(session, handle, CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE)) ?? true
            let sensitive = try token.flag(session, handle, CK_ATTRIBUTE_TYPE(CKA_SENSITIVE)) ?? false
            return (handle, publicKey, extractable, sensitive, epoch)
        }
        self.publicKey = found.1
        self.isExtractable = found.2
        self.isSensitive = found.3
        cachedHandle.withLock { $0 = (found.4, found.0) }
    }

    /// Signs `message` with pure Ed25519 on the token; returns 64 bytes. After a lost session or token it
    /// reconnects and tries once more.
    /// - Throws: ``PKCS11Error/Code/tokenUnavailable`` when the token cannot be reached,
    ///   ``PKCS11Error/Code/keyChanged`` when the key found again is another key.
    public func sign(_ message: [UInt8]) throws(PKCS11Error) -> [UInt8] {
        var attempt = 0
        while true {
            attempt += 1
            do throws(PKCS11Error) {
                return try token.withSession { session, epoch throws(PKCS11Error) in
                    try signOnce(message, session: session, handle: handle(session, epoch: epoch))
                }
            } catch {
                let lost =
                    error.code == .tokenUnavailable || error.code == .tokenNotFound
                    || PKCS11Call.tokenLost(CK_RV(error.returnValue))
                guard lost, error.code != .pinIncorrect else { throw error }
                if attempt < 2 { continue }
                throw PKCS11Error(
                    .tokenUnavailable,
                    "the signing key \(Self.name(label: label, id: id)) on token \"\(token.label)\" cannot be used: \(error.detail)",
                    returnValue: error.returnValue)
            }
        }
    }

    private func signOnce(_ message: [UInt8], session: CK_SESSION_HANDLE, handle: CK_OBJECT_HANDLE)
        throws(PKCS11Error) -> [UInt8]
    {
        let functions = token.functions
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_EDDSA), pParameter: nil, ulParameterLen: 0)
        try PKCS11Call.check(functions.C_SignInit(session, &mechanism, handle), "C_SignInit (CKM_EDDSA)")
        var input = message.isEmpty ? [0] : message
        var signature = [UInt8](repeating: 0, count: 64)
        var length = CK_ULONG(64)
        let result = input.withUnsafeMutableBufferPointer { data in
            signature.withUnsafeMutableBufferPointer { out in
                functions.C_Sign(session, data.baseAddress, CK_ULONG(message.count), out.baseAddress, &length)
            }
        }
        try PKCS11Call.check(result, "C_Sign (CKM_EDDSA)")
        guard length == 64 else {
            throw PKCS11Error(.module, "C_Sign (CKM_EDDSA) returned \(length) bytes, not an Ed25519 signature")
        }
        return signature
    }

    /// The private key's handle for this connection epoch: found again (and its public key compared) after a
    /// reconnection.
    private func handle(_ session: CK_SESSION_HANDLE, epoch: Int) throws(PKCS11Error) -> CK_OBJECT_HANDLE {
        if let cached = cachedHandle.withLock({ $0 }), cached.epoch == epoch { return cached.handle }
        let name = Self.name(label: label, id: id)
        let handle = try Self.privateKey(token, session, label: label, id: id)
        guard try Self.publicKey(token, session, label: label, id: id, name: name) == publicKey else {
            throw PKCS11Error(
                .keyChanged,
                "the key \(name) on token \"\(token.label)\" is no longer the key the server started with; restart the server with the key it should use"
            )
        }
        cachedHandle.withLock { $0 = (epoch, handle) }
        return handle
    }

    /// How a key is named in messages: `object=NAME;id=HEX`.
    static func name(label: String?, id: [UInt8]?) -> String {
        [label.map { "object=\($0)" }, id.map { "id=\($0.map { String(format2: $0) }.joined())" }]
            .compactMap { $0 }.joined(separator: ";")
    }

    /// A key-object template: class, and label and id when given.
    static func template(_ objectClass: CK_OBJECT_CLASS, label: String?, id: [UInt8]?) -> PKCS11Template {
        var template = PKCS11Template()
        template.add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: objectClass)
        if let label { template.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), bytes: Array(label.utf8)) }
        if let id { template.add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id) }
        return template
    }

    private static func privateKey(_ token: PKCS11Token, _ session: CK_SESSION_HANDLE, label: String?, id: [UInt8]?)
        throws(PKCS11Error) -> CK_OBJECT_HANDLE
    {
        let handles = try token.findObjects(
            session, template(CK_OBJECT_CLASS(CKO_PRIVATE_KEY), label: label, id: id))
        let name = Self.name(label: label, id: id)
        guard handles.count == 1 else {
            if handles.isEmpty {
                throw PKCS11Error(
                    .objectNotFound,
                    "token \"\(token.label)\" has no private key \(name); check object= and id= in the URI, or create the key with `pinset keygen --pkcs11 URI`"
                )
            }
            throw PKCS11Error(
                .objectAmbiguous, "token \"\(token.label)\" has several private keys \(name); add id= to the URI")
        }
        return handles[0]
    }

    /// The raw public key of the public key object beside the private key (`CKA_EC_POINT`), checked to be on
    /// edwards25519.
    private static func publicKey(
        _ token: PKCS11Token, _ session: CK_SESSION_HANDLE, label: String?, id: [UInt8]?, name: String
    ) throws(PKCS11Error) -> [UInt8] {
        let handles = try token.findObjects(session, template(CK_OBJECT_CLASS(CKO_PUBLIC_KEY), label: label, id: id))
        guard handles.count == 1 else {
            throw PKCS11Error(
                handles.isEmpty ? .objectNotFound : .objectAmbiguous,
                "token \"\(token.label)\" has \(handles.isEmpty ? "no" : "several") public key objects \(name) beside the private key; the server reads the public key from it"
            )
        }
        let parameters = try token.attribute(session, handles[0], CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS)) ?? []
        guard EdwardsCurve.isEd25519(parameters: parameters),
            let point = try token.attribute(session, handles[0], CK_ATTRIBUTE_TYPE(CKA_EC_POINT)),
            let raw = EdwardsCurve.rawPoint(point)
        else {
            throw PKCS11Error(
                .wrongKeyType,
                "the key \(name) on token \"\(token.label)\" is not an Ed25519 key (its curve or public point is another); create one with `pinset keygen --pkcs11 URI`"
            )
        }
        return raw
    }
}

extension String {
    /// Two lowercase hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self.init([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
