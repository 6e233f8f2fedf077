/// How keys named by PKCS#11 URIs are reached: the module and the PIN. Every field has a default; the command
/// line fills it from `--pkcs11-module`, `PINSET_PKCS11_MODULE` and `PINSET_PKCS11_PIN`.
public struct PKCS11Settings: Sendable, CustomStringConvertible {
    /// The module's shared library (e.g. `/usr/lib/softhsm/libsofthsm2.so`); a URI's `module-path` overrides it.
    /// Default none.
    public var modulePath: String?
    /// The user PIN when a URI has no `pin-source`. Default none.
    /// - Warning: A secret: never log it, never put it in an error; ``description`` leaves it out.
    public var pin: String?
    /// Start with a private key the token would let out (`CKA_EXTRACTABLE` true, or not sensitive), with a
    /// warning, instead of refusing. Default `false`.
    public var allowExtractableKey: Bool

    /// Creates settings; every parameter has the default documented on its property.
    public init(modulePath: String? = nil, pin: String? = nil, allowExtractableKey: Bool = false) {
        self.modulePath = modulePath
        self.pin = pin
        self.allowExtractableKey = allowExtractableKey
    }

    /// The module path and whether a PIN is set, never the PIN.
    public var description: String {
        "PKCS11Settings(module: \(modulePath ?? "none"), pin: \(pin == nil ? "unset" : "set"), allowExtractableKey: \(allowExtractableKey))"
    }
}
