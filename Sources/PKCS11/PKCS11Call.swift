import CPKCS11

/// Turns PKCS#11 return values into typed errors, in one place (as swift-nio's `syscall` wrapper does).
enum PKCS11Call {
    /// Throws unless `returnValue` is `CKR_OK`; `what` names the call and what it was about.
    static func check(_ returnValue: CK_RV, _ what: @autoclosure () -> String) throws(PKCS11Error) {
        guard returnValue != CK_RV(CKR_OK) else { return }
        throw error(returnValue, what())
    }

    /// The typed error for a failed call: a refused PIN, a lost token, or any other return value.
    static func error(_ returnValue: CK_RV, _ what: String) -> PKCS11Error {
        let code: PKCS11Error.Code
        switch returnValue {
        case CK_RV(CKR_PIN_INCORRECT), CK_RV(CKR_PIN_INVALID), CK_RV(CKR_PIN_LEN_RANGE), CK_RV(CKR_PIN_LOCKED),
            CK_RV(CKR_PIN_EXPIRED):
            code = .pinIncorrect
        case _ where tokenLost(returnValue): code = .tokenUnavailable
        default: code = .module
        }
        return PKCS11Error(code, "\(what) failed: \(name(returnValue))", returnValue: UInt(returnValue))
    }

    /// Return values after which the sessions, the login or the object handles may be gone (a token removed,
    /// reset or re-inserted): the caller drops its sessions, opens new ones, logs in again and retries once.
    static func tokenLost(_ returnValue: CK_RV) -> Bool {
        switch returnValue {
        case CK_RV(CKR_SESSION_HANDLE_INVALID), CK_RV(CKR_SESSION_CLOSED), CK_RV(CKR_TOKEN_NOT_PRESENT),
            CK_RV(CKR_TOKEN_NOT_RECOGNIZED), CK_RV(CKR_DEVICE_REMOVED), CK_RV(CKR_DEVICE_ERROR),
            CK_RV(CKR_USER_NOT_LOGGED_IN), CK_RV(CKR_OBJECT_HANDLE_INVALID), CK_RV(CKR_KEY_HANDLE_INVALID),
            CK_RV(CKR_SLOT_ID_INVALID), CK_RV(CKR_CRYPTOKI_NOT_INITIALIZED), CK_RV(CKR_GENERAL_ERROR),
            CK_RV(CKR_DEVICE_MEMORY), CK_RV(CKR_FUNCTION_FAILED):
            true
        default: false
        }
    }

    /// The spec's name of a return value, with its number: `CKR_PIN_INCORRECT (0xa0)`.
    static func name(_ returnValue: CK_RV) -> String {
        let names: [CK_RV: String] = [
            CK_RV(CKR_CANCEL): "CKR_CANCEL", CK_RV(CKR_HOST_MEMORY): "CKR_HOST_MEMORY",
            CK_RV(CKR_SLOT_ID_INVALID): "CKR_SLOT_ID_INVALID", CK_RV(CKR_GENERAL_ERROR): "CKR_GENERAL_ERROR",
            CK_RV(CKR_FUNCTION_FAILED): "CKR_FUNCTION_FAILED", CK_RV(CKR_ARGUMENTS_BAD): "CKR_ARGUMENTS_BAD",
            CK_RV(CKR_ATTRIBUTE_SENSITIVE): "CKR_ATTRIBUTE_SENSITIVE",
            CK_RV(CKR_ATTRIBUTE_TYPE_INVALID): "CKR_ATTRIBUTE_TYPE_INVALID",
            CK_RV(CKR_ATTRIBUTE_VALUE_INVALID): "CKR_ATTRIBUTE_VALUE_INVALID",
            CK_RV(CKR_DEVICE_ERROR): "CKR_DEVICE_ERROR", CK_RV(CKR_DEVICE_MEMORY): "CKR_DEVICE_MEMORY",
            CK_RV(CKR_DEVICE_REMOVED): "CKR_DEVICE_REMOVED", CK_RV(CKR_KEY_HANDLE_INVALID): "CKR_KEY_HANDLE_INVALID",
            CK_RV(CKR_KEY_TYPE_INCONSISTENT): "CKR_KEY_TYPE_INCONSISTENT",
            CK_RV(CKR_MECHANISM_INVALID): "CKR_MECHANISM_INVALID",
            CK_RV(CKR_MECHANISM_PARAM_INVALID): "CKR_MECHANISM_PARAM_INVALID",
            CK_RV(CKR_OBJECT_HANDLE_INVALID): "CKR_OBJECT_HANDLE_INVALID",
            CK_RV(CKR_OPERATION_ACTIVE): "CKR_OPERATION_ACTIVE", CK_RV(CKR_PIN_INCORRECT): "CKR_PIN_INCORRECT",
            CK_RV(CKR_PIN_INVALID): "CKR_PIN_INVALID", CK_RV(CKR_PIN_LEN_RANGE): "CKR_PIN_LEN_RANGE",
            CK_RV(CKR_PIN_EXPIRED): "CKR_PIN_EXPIRED", CK_RV(CKR_PIN_LOCKED): "CKR_PIN_LOCKED",
            CK_RV(CKR_SESSION_CLOSED): "CKR_SESSION_CLOSED", CK_RV(CKR_SESSION_COUNT): "CKR_SESSION_COUNT",
            CK_RV(CKR_SESSION_HANDLE_INVALID): "CKR_SESSION_HANDLE_INVALID",
            CK_RV(CKR_TEMPLATE_INCOMPLETE): "CKR_TEMPLATE_INCOMPLETE",
            CK_RV(CKR_TEMPLATE_INCONSISTENT): "CKR_TEMPLATE_INCONSISTENT",
            CK_RV(CKR_TOKEN_NOT_PRESENT): "CKR_TOKEN_NOT_PRESENT",
            CK_RV(CKR_TOKEN_NOT_RECOGNIZED): "CKR_TOKEN_NOT_RECOGNIZED",
            CK_RV(CKR_TOKEN_WRITE_PROTECTED): "CKR_TOKEN_WRITE_PROTECTED",
            CK_RV(CKR_USER_ALREADY_LOGGED_IN): "CKR_USER_ALREADY_LOGGED_IN",
            CK_RV(CKR_USER_NOT_LOGGED_IN): "CKR_USER_NOT_LOGGED_IN",
            CK_RV(CKR_USER_PIN_NOT_INITIALIZED): "CKR_USER_PIN_NOT_INITIALIZED",
            CK_RV(CKR_USER_TYPE_INVALID): "CKR_USER_TYPE_INVALID", CK_RV(CKR_BUFFER_TOO_SMALL): "CKR_BUFFER_TOO_SMALL",
            CK_RV(CKR_CRYPTOKI_NOT_INITIALIZED): "CKR_CRYPTOKI_NOT_INITIALIZED",
            CK_RV(CKR_CRYPTOKI_ALREADY_INITIALIZED): "CKR_CRYPTOKI_ALREADY_INITIALIZED",
            CK_RV(CKR_DOMAIN_PARAMS_INVALID): "CKR_DOMAIN_PARAMS_INVALID",
            CK_RV(CKR_CURVE_NOT_SUPPORTED): "CKR_CURVE_NOT_SUPPORTED",
        ]
        return "\(names[returnValue] ?? "CK_RV") (0x\(String(returnValue, radix: 16)))"
    }
}
