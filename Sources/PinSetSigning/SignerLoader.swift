import Logging
import OpenSSLCrypto
import PKCS11

/// Opens the signing key named on the command line, a PEM file path or a PKCS#11 URI, and checks it before the
/// server uses it: the key signs a test message and the signature verifies under the public key.
public enum SignerLoader {
    /// Where the server and the CLI look for the signing key when no `--key` or `PINSET_KEY` says otherwise.
    public static let defaultKeyPath = "./data/signing-key.pem"

    /// Opens the key at `location` (`pkcs11:…` or a PKCS#8 PEM file) and runs the start-up checks.
    ///
    /// - Throws: ``StartupError`` with one line that says what to fix: module missing, token or key missing,
    ///   wrong PIN, not an Ed25519 key, extractable (unless ``PKCS11Settings/allowExtractableKey``, which logs a
    ///   warning instead), or a test signature that does not verify; `CryptoError` for a bad PEM file.
    public static func open(_ location: String, pkcs11: PKCS11Settings, logger: Logger? = nil) throws
        -> any DocumentSigner
    {
        let signer: any DocumentSigner
        if PKCS11URI.isURI(location) {
            signer = try openToken(location, pkcs11: pkcs11, logger: logger)
        } else {
            signer = try Ed25519SigningKey.load(pemFile: location)
        }
        try selfCheck(signer, location: location)
        return signer
    }

    /// Whether `location` names a key on a PKCS#11 token (`pkcs11:…`) rather than a PEM file, so a caller can
    /// tell the two apart without depending on PKCS11.
    public static func isTokenURI(_ location: String) -> Bool { PKCS11URI.isURI(location) }

    /// The token named by `uri`, with its module loaded and the user logged in.
    public static func token(_ uri: PKCS11URI, pkcs11: PKCS11Settings) throws(PKCS11Error) -> PKCS11Token {
        guard let label = uri.token else {
            throw PKCS11Error(.invalidURI, "the PKCS#11 URI \(uri) names no token; add token=LABEL")
        }
        guard let modulePath = uri.modulePath ?? pkcs11.modulePath else {
            throw PKCS11Error(
                .moduleNotGiven,
                "no PKCS#11 module for \(uri): give --pkcs11-module PATH or PINSET_PKCS11_MODULE (SoftHSM: /usr/lib/softhsm/libsofthsm2.so)"
            )
        }
        let module = try PKCS11Module.load(path: modulePath)
        return try PKCS11Token(module: module, label: label, pin: uri.pin(fallback: pkcs11.pin))
    }

    private static func openToken(_ location: String, pkcs11: PKCS11Settings, logger: Logger?) throws -> TokenSigner {
        let signer: TokenSigner
        do throws(PKCS11Error) {
            let uri = try PKCS11URI(location)
            guard uri.object != nil || uri.id != nil else {
                throw PKCS11Error(.invalidURI, "the PKCS#11 URI \(uri) names no key; add object=LABEL (or id=)")
            }
            let key = try PKCS11Ed25519Key(token: token(uri, pkcs11: pkcs11), label: uri.object, id: uri.id)
            signer = TokenSigner(key: key, uri: uri)
        } catch {
            throw StartupError.signingKey(location, error)
        }
        if signer.key.isExtractable || !signer.key.isSensitive {
            guard pkcs11.allowExtractableKey else { throw StartupError.extractableKey(signer.uri) }
            logger?.warning(
                "the signing key can be copied off the token (CKA_EXTRACTABLE true or CKA_SENSITIVE false); started anyway because of --allow-extractable-key",
                metadata: ["key": "\(signer.uri)", "kid": "\(signer.kid)"])
        }
        return signer
    }

    /// Signs a test message and verifies it with OpenSSL under the key's public key.
    private static func selfCheck(_ signer: any DocumentSigner, location: String) throws {
        let message = Array("pinset start-up check \(signer.kid)".utf8)
        let signature: [UInt8]
        do {
            signature = try signer.sign(message)
        } catch {
            throw StartupError(
                code: .signingKeyUnusable, description: "the signing key \(location) cannot sign: \(error)")
        }
        guard Ed25519.verify(signature: signature, message: message, publicKey: signer.publicKey) else {
            throw StartupError(
                code: .signingKeyUnusable,
                description:
                    "the signing key \(location) made a signature that does not verify under its public key; the private and public key objects do not belong together"
            )
        }
    }
}
