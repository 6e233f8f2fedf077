/// Why a PKCS#11 operation failed. Compare ``code`` (and ``returnValue`` for ``Code/module``), not the message.
///
/// Messages name the module, token and object and say what to fix; they never contain a PIN or key material.
public struct PKCS11Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Equatable {
        /// The URI is not an RFC 7512 `pkcs11:` URI this wrapper understands.
        case invalidURI
        /// No module path was given (`--pkcs11-module`, `PINSET_PKCS11_MODULE` or `module-path` in the URI).
        case moduleNotGiven
        /// The module file could not be loaded (`dlopen`) or has no `C_GetFunctionList`.
        case moduleNotLoadable
        /// No PIN: neither `pin-source` in the URI nor the PIN variable.
        case pinNotGiven
        /// The `pin-source` file could not be read.
        case pinSourceUnreadable
        /// No slot holds a token with the label asked for.
        case tokenNotFound
        /// The token refused the PIN (`CKR_PIN_INCORRECT`, `CKR_PIN_LOCKED`…).
        case pinIncorrect
        /// No key object matches the label or id asked for.
        case objectNotFound
        /// More than one key object matches: name it by `id` too.
        case objectAmbiguous
        /// The key is not an Ed25519 key (`CKK_EC_EDWARDS` with the edwards25519 curve).
        case wrongKeyType
        /// An object with this label or id already exists (key generation refuses to add a second).
        case objectExists
        /// The token went away or was reset and could not be reached again (removed, renamed, re-initialised).
        case tokenUnavailable
        /// The public key on the token does not match the one the key was opened with.
        case keyChanged
        /// Any other return value of the module; see ``PKCS11Error/returnValue``.
        case module
    }

    /// The kind of failure.
    public let code: Code
    /// The module's `CK_RV` when a call failed, else 0 (`CKR_OK`).
    public let returnValue: UInt
    /// What went wrong and how to fix it. Never contains a PIN or key material.
    public let detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String, returnValue: UInt = 0) {
        self.code = code
        self.detail = detail
        self.returnValue = returnValue
    }

    public var description: String { detail }
}
