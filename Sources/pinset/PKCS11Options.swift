import ArgumentParser
import Foundation
import PinSetSigning

/// `--pkcs11-module` for commands that take keys as PKCS#11 URIs. The PIN is never an option: it comes from
/// `pin-source=` in the URI or from `PINSET_PKCS11_PIN`.
struct PKCS11Options: ParsableArguments {
    @Option(
        help:
            "PKCS#11 module (shared library) for keys given as pkcs11: URIs, e.g. /usr/lib/softhsm/libsofthsm2.so. Env PINSET_PKCS11_MODULE. The PIN comes from pin-source=file:PATH in the URI or from env PINSET_PKCS11_PIN."
    )
    var pkcs11Module: String?

    /// The module and PIN from the option and the environment.
    func settings(allowExtractableKey: Bool = false) -> PKCS11Settings {
        Self.settings(module: pkcs11Module, allowExtractableKey: allowExtractableKey)
    }

    /// The module (`module`, else `PINSET_PKCS11_MODULE`) and the PIN (`PINSET_PKCS11_PIN`).
    static func settings(module: String?, allowExtractableKey: Bool = false) -> PKCS11Settings {
        PKCS11Settings(
            modulePath: module ?? Environment.value("PINSET_PKCS11_MODULE"),
            pin: Environment.value("PINSET_PKCS11_PIN"),
            allowExtractableKey: allowExtractableKey)
    }
}
