import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetOpenSSL
import PinSetRules

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Options shared by `verify` and `fetch`: trusted keys, version floor, and the check itself through the client
/// module's ``DocumentVerifier`` (never a second implementation).
struct TrustOptions: ParsableArguments {
    @Option(
        help:
            "A trusted key: Ed25519 public key PEM, a JWK/JWKS file or inline JWK JSON, or a PKCS#8 private key PEM (its public half is used). Repeatable."
    )
    var trustKey: [String] = []
    @Option(help: "Refuse documents older than this version (rollback check).")
    var minVersion: Int?
    @Option(
        help:
            "An offline root public key (Ed25519 PEM) shipped instead of, or beside, --trust-key (PROTOCOL §6). Repeatable."
    )
    var rootPub: [String] = []
    @Option(help: "How many distinct root keys must sign trust version 1. Default 1.")
    var rootThreshold: Int = 1

    func validate() throws {
        guard !trustKey.isEmpty || !rootPub.isEmpty else {
            throw ValidationError("give at least one --trust-key or --root-pub")
        }
    }

    /// With `--root-pub`: the trust state reached by walking `documents` (versions 1, 2, … in order) from the root
    /// keys, exactly as a client does (PROTOCOL §6.2); `nil` without root keys.
    func trustStore(walking documents: [[UInt8]]) throws -> TrustStore? {
        guard !rootPub.isEmpty else {
            guard documents.isEmpty else { throw CLIError("--trust needs --root-pub (the root keys to walk from)") }
            return nil
        }
        let roots = try rootPub.map { try RootKeyFiles.publicKey($0, option: "--root-pub") }
        let store: TrustStore
        do {
            store = try TrustStore(rootKeys: roots, threshold: rootThreshold, crypto: Self.crypto)
        } catch {
            throw CLIError("--root-threshold: \(error.detail)")
        }
        switch TrustDocumentVerifier().walk(documents, from: store.current, now: Date()) {
        case .failure(let rejection):
            throw CLIError("refused: trust: \(rejection)")
        case .success(let state):
            store.advance(to: state)
            print("trust:             version \(state.version), \(state.signingKeys.count) signing key(s) delegated")
        }
        return store
    }

    /// The `--trust` documents of `verify`, read in order.
    static func read(_ files: [String]) throws -> [[UInt8]] {
        try files.map(InputFile.bytes)
    }

    func keys() throws -> [TrustedKey] {
        var keys: [TrustedKey] = []
        for argument in trustKey {
            let text: String
            if argument.hasPrefix("{") {
                text = argument
            } else {
                guard let data = FileManager.default.contents(atPath: argument) else {
                    throw CLIError("cannot read the trusted key file \(argument)")
                }
                text = String(decoding: data, as: UTF8.self)
            }
            do {
                keys += try Self.parse(text)
            } catch {
                throw CLIError("--trust-key \(argument.hasPrefix("{") ? "(inline JWK)" : argument): \(error)")
            }
        }
        return keys
    }

    /// The CLI checks signatures with the system OpenSSL (no swift-crypto in the executable).
    static let crypto = OpenSSLTrustCrypto()

    private static func parse(_ text: String) throws -> [TrustedKey] {
        if text.contains("-----BEGIN PUBLIC KEY-----") { return [try TrustedKey(spkiPEM: text, crypto: Self.crypto)] }
        if text.contains("PRIVATE KEY-----") {
            let key = try Ed25519SigningKey(pkcs8PEM: Array(text.utf8))
            return [try TrustedKey(rawRepresentation: key.publicKey, crypto: Self.crypto)]
        }
        let data = Data(text.utf8)
        if let set = try? JSONDecoder().decode(JWKSet.self, from: data) {
            return try set.keys.map { jwk throws(TrustedKey.Error) in try TrustedKey(jwk: jwk, crypto: Self.crypto) }
        }
        if let jwk = try? JSONDecoder().decode(Ed25519JWK.self, from: data) {
            return [try TrustedKey(jwk: jwk, crypto: Self.crypto)]
        }
        throw CLIError("not an Ed25519 public key PEM, JWK, JWKS or PKCS#8 private key PEM")
    }

    /// Verifies and prints the decoded set; on refusal throws the exact reason (printed last on stderr, exit 1).
    func check(_ bytes: [UInt8], host: String, trustDocuments: [[UInt8]] = []) throws {
        let verifier: DocumentVerifier
        if let store = try trustStore(walking: trustDocuments) {
            verifier = DocumentVerifier(trustedKeys: try keys(), trustStore: store)
        } else {
            verifier = DocumentVerifier(trustedKeys: try keys())
        }
        switch verifier.verify(bytes, host: host, now: Date(), lastAccepted: minVersion.map(AcceptedVersion.minimum)) {
        case .failure(let rejection):
            throw CLIError("refused: \(rejection)")
        case .success(let document):
            let set = document.pinSet
            print("verified: signed by kid \(document.kid)")
            print("host:              \(set.host)")
            print("version:           \(set.version)")
            print("issuedAt:          \(RFC3339.format(set.issuedAt))")
            print("expiresAt:         \(RFC3339.format(set.expiresAt))")
            print("enforce:           \(set.enforce)")
            print("includeSubdomains: \(set.includeSubdomains)")
            if let uri = set.reportUri { print("reportUri:         \(uri)") }
            print("pins:              \(set.pins.count)")
            for pin in set.pins { print("  \(pin.sha256)  \(pin.role.rawValue)  \(pin.type.rawValue)") }
        }
    }
}

/// `pinset verify FILE --host HOST --trust-key ...`: checks a saved document as a client would.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a saved signed document exactly as a client does (PROTOCOL §5).",
        discussion: "On refusal exits 1 with the reason (`refused: <code>: <detail>`) as the last line.")
    @Argument(help: "The document file; - for standard input.") var file: String
    @Option(help: "The host the document must be for.") var host: String
    @OptionGroup var trust: TrustOptions
    @Option(
        name: .customLong("trust"),
        help: "A trust document to walk through (versions 1, 2, … in order) from the --root-pub keys. Repeatable.")
    var trustDocuments: [String] = []

    func run() throws {
        try trust.check(
            InputFile.bytes(file), host: host, trustDocuments: try TrustOptions.read(trustDocuments))
    }
}

/// `pinset fetch HOST --server URL --trust-key ...`: downloads `/pins/HOST` and verifies it.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch a host's signed document from a server or static mirror and verify it as a client does.",
        discussion: "On refusal exits 1 with the reason (`refused: <code>: <detail>`) as the last line.")
    @Argument(help: "The host.") var host: String
    @Option(help: "Server or mirror base URL. Env PINSET_SERVER. Default http://127.0.0.1:8080.") var server: String?
    @OptionGroup var trust: TrustOptions

    func run() async throws {
        let base = Environment.server(server).trimmingSuffix("/")
        let data = try await MirrorFetch.get(base: base, path: "/pins/" + host.pathSegment)
        // With root keys, walk /trust/1 … /trust from the same server or mirror, as a client does.
        let chain = trust.rootPub.isEmpty ? [] : try await MirrorFetch.chain(base: base)
        try trust.check(data, host: host, trustDocuments: chain)
    }
}
