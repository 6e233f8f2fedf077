import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetOpenSSL
import PinSetRules
import PinSetSigning

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `pinset trust`: trust documents signed offline by root keys (PROTOCOL §6).
struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Sign, co-sign, push and show trust documents (offline root keys, PROTOCOL §6).",
        subcommands: [TrustSign.self, TrustCosign.self, TrustPush.self, TrustShow.self])
}

/// `pinset trust sign`: a new trust document, signed by one or more root keys. Offline: no server, no network.
struct TrustSign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Write a trust document naming the signing keys, signed by root keys (offline; no network).",
        discussion: """
            The payload's rootKeys (who may sign the next version) default to the public halves of the --root-key \
            files, with threshold 1. Every key listed in --next-root-pub must also sign (give its private key as \
            --root-key here or add it later with `pinset trust cosign`).
            """)
    @Option(
        help:
            "A root private key that signs: PKCS#8 PEM (mode 0600), or a PKCS#11 URI 'pkcs11:token=…;object=…' (each with its own pin-source=file:…). Repeatable."
    )
    var rootKey: [String] = []
    @Option(
        help:
            "A signing key the document delegates: Ed25519 public key PEM (or its private key PEM, or a pkcs11: URI). Repeatable."
    )
    var signingKeyPub: [String] = []
    @Option(
        help:
            "A transparency log key clients accept checkpoints from (logKeys, PROTOCOL §7.1): the log's vkey as `pinset serve` prints it (origin+keyid+base64), or an Ed25519 public (or private) key PEM. Repeatable. Default: no logKeys."
    )
    var logKeyPub: [String] = []
    @OptionGroup(title: "Keys in hardware") var pkcs11: PKCS11Options
    @Option(help: "The trust document version: exactly one more than the version in force (1 for the first).")
    var version: Int
    @Option(help: "How long the document is valid, e.g. 180d.") var expires: String = "180d"
    @Option(help: "The file to write.") var out: String
    @Option(help: "A root public key that may sign the next version (default: the --root-key files). Repeatable.")
    var nextRootPub: [String] = []
    @Option(help: "How many distinct root keys must sign the next version. Default 1.") var threshold: Int = 1

    func validate() throws {
        guard !rootKey.isEmpty else { throw ValidationError("give at least one --root-key") }
        guard !signingKeyPub.isEmpty else { throw ValidationError("give at least one --signing-key-pub") }
        guard version >= 1 else { throw ValidationError("--version must be at least 1") }
    }

    func run() throws {
        let settings = pkcs11.settings()
        let signers = try rootKey.map { try RootKeyFiles.privateKey($0, pkcs11: settings) }
        let crypto = OpenSSLTrustCrypto()
        let nextRoots: [[UInt8]] =
            nextRootPub.isEmpty
            ? signers.map(\.publicKey)
            : try nextRootPub.map { try RootKeyFiles.publicKey($0, option: "--next-root-pub").rawRepresentation }
        let distinct = Set(nextRoots.map { crypto.kid(publicKey: $0) }).count
        guard (1...distinct).contains(threshold) else {
            throw CLIError("--threshold \(threshold) must be between 1 and the \(distinct) distinct next root key(s)")
        }
        let delegated = try signingKeyPub.map {
            try RootKeyFiles.publicKey($0, option: "--signing-key-pub", pkcs11: settings).rawRepresentation
        }
        let logKeys = try logKeyPub.map { try RootKeyFiles.logPublicKey($0) }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let lifetime = try Environment.duration(expires, name: "--expires")
        let payload = TrustPayload(
            version: version, issuedAt: now, expiresAt: now.addingTimeInterval(lifetime.rounded(.down)),
            rootKeys: Self.jwks(nextRoots, crypto), rootThreshold: threshold,
            signingKeys: Self.jwks(delegated, crypto), logKeys: logKeys.isEmpty ? nil : Self.jwks(logKeys, crypto))
        var document = TrustDocument(payload: Base64URL.encode(payload.encodedJSON()), signatures: [])
        for key in signers { try TrustCosign.addSignature(to: &document, key: key) }
        try Data(document.serialized).write(to: URL(fileURLWithPath: out), options: .atomic)
        print("wrote trust document version \(version) to \(out)")
        TrustShow.printSummary(document.serialized)
    }

    /// Distinct keys as payload JWKs, in the order given.
    static func jwks(_ keys: [[UInt8]], _ crypto: OpenSSLTrustCrypto) -> [Ed25519JWK] {
        var seen = Set<String>()
        return keys.compactMap { key in
            let kid = crypto.kid(publicKey: key)
            guard seen.insert(kid).inserted else { return nil }
            return TrustPayload.jwk(publicKey: key, kid: kid)
        }
    }
}

/// `pinset trust cosign FILE --root-key FILE`: adds one signature; the payload is unchanged.
struct TrustCosign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cosign",
        abstract: "Add one root key's signature to a trust document (the payload is unchanged); offline.",
        discussion: "How a k-of-n threshold is collected from different people, each with their own key.")
    @Argument(help: "The trust document file; rewritten in place unless --out is given.") var file: String
    @Option(help: "The root private key: PKCS#8 PEM (mode 0600), or a PKCS#11 URI 'pkcs11:token=…;object=…'.")
    var rootKey: String
    @OptionGroup(title: "Keys in hardware") var pkcs11: PKCS11Options
    @Option(help: "Write here instead of rewriting FILE.") var out: String?

    func run() throws {
        let bytes = try InputFile.bytes(file)
        guard var document = try? TrustDocument.decode(json: bytes) else {
            throw CLIError("\(file) is not a trust document (JWS general JSON serialization)")
        }
        let key = try RootKeyFiles.privateKey(rootKey, pkcs11: pkcs11.settings())
        let already = document.signatures.contains { entry in
            Base64URL.decode(entry.protected).map { $0 == TrustDocument.protectedHeader(kid: key.kid) } ?? false
        }
        if already {
            print("\(file) is already signed by kid \(key.kid); nothing changed")
            return
        }
        try Self.addSignature(to: &document, key: key)
        let target = out ?? file
        try Data(document.serialized).write(to: URL(fileURLWithPath: target), options: .atomic)
        print("added the signature of kid \(key.kid); wrote \(target)")
        TrustShow.printSummary(document.serialized)
    }

    /// Appends `key`'s signature over `protected + "." + payload`.
    /// - Throws: when a key on a token cannot sign (token gone).
    static func addSignature(to document: inout TrustDocument, key: any DocumentSigner) throws {
        let protected = Base64URL.encode(TrustDocument.protectedHeader(kid: key.kid))
        let signature: [UInt8]
        do {
            signature = try key.sign(document.signingInput(protected: protected))
        } catch {
            throw CLIError("root key \(key.kid) cannot sign: \(error)")
        }
        document.signatures.append(TrustSignature(protected: protected, signature: Base64URL.encode(signature)))
    }
}

/// `pinset trust push FILE`: `PUT /admin/trust`.
struct TrustPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Upload a signed trust document to the server (PUT /admin/trust).",
        discussion: "The server refuses (422, with the rule) a document that does not chain from the version before it."
    )
    @Argument(help: "The trust document file; - for standard input.") var file: String
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let bytes = try InputFile.bytes(file)
        let data = try await options.client().send("PUT", "/admin/trust", body: Data(bytes))
        if options.printJSON(data) { return }
        let answer = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        print("pushed trust document version \(answer?["version"] as? Int ?? 0)")
        if let kid = answer?["rotatedTo"] as? String {
            print("the server now signs with kid \(kid); \(answer?["resigned"] as? Int ?? 0) document(s) re-signed")
            if let note = answer?["note"] as? String { print(note) }
        }
    }
}

/// `pinset trust show FILE | --server URL`: the decoded payload and who signed it.
struct TrustShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a trust document's payload and its signers (nothing is trusted: this only decodes).")
    @Argument(help: "A trust document file; - for standard input.") var file: String?
    @Option(help: "Fetch GET /trust (or /trust/{version}) from this server or mirror instead.") var server: String?
    @Option(help: "With --server: the version to fetch (default the newest).") var version: Int?

    func validate() throws {
        guard (file == nil) != (server == nil) else { throw ValidationError("give either FILE or --server URL") }
    }

    func run() async throws {
        let bytes: [UInt8]
        if let server {
            bytes = try await MirrorFetch.get(base: server, path: version.map { "/trust/\($0)" } ?? "/trust")
        } else {
            bytes = try InputFile.bytes(file!)
        }
        guard TrustRules.unverifiedPayload(bytes) != nil else {
            throw CLIError("not a trust document (JWS general JSON serialization with a trust payload)")
        }
        Self.printSummary(bytes)
    }

    /// The payload, and each signature's kid with whether it verifies by a root key of this very payload.
    static func printSummary(_ bytes: [UInt8]) {
        guard let payload = TrustRules.unverifiedPayload(bytes), let document = try? TrustDocument.decode(json: bytes)
        else { return }
        let crypto = OpenSSLTrustCrypto()
        print("version:       \(payload.version)")
        print("issuedAt:      \(RFC3339.format(payload.issuedAt))")
        print("expiresAt:     \(RFC3339.format(payload.expiresAt))")
        print("rootThreshold: \(payload.rootThreshold)")
        print("rootKeys:      \(payload.rootKeys.count)")
        for key in payload.rootKeys {
            print("  \(key.publicKeyBytes.map { crypto.kid(publicKey: $0) } ?? "(invalid key)")")
        }
        print("signingKeys:   \(payload.signingKeys.count)")
        for key in payload.signingKeys {
            print("  \(key.publicKeyBytes.map { crypto.kid(publicKey: $0) } ?? "(invalid key)")")
        }
        if let logKeys = payload.logKeys {
            print("logKeys:       \(logKeys.count)")
            for key in logKeys {
                print("  \(key.publicKeyBytes.map { crypto.kid(publicKey: $0) } ?? "(invalid key)")")
            }
        }
        print("signatures:    \(document.signatures.count)")
        for entry in document.signatures {
            let header = Base64URL.decode(entry.protected).flatMap {
                try? JSONDecoder().decode([String: String].self, from: Data($0))
            }
            let kid = header?["kid"] ?? "(no kid)"
            let ownRoot = payload.rootKeys.first { $0.publicKeyBytes.map { crypto.kid(publicKey: $0) } == kid }
            let valid = ownRoot?.publicKeyBytes.map { key in
                Base64URL.decode(entry.signature).map {
                    crypto.isValidEd25519Signature(
                        $0, for: document.signingInput(protected: entry.protected), publicKey: key)
                } ?? false
            }
            let note: String
            switch valid {
            case .some(true): note = "a root key of this version, signature valid"
            case .some(false): note = "a root key of this version, signature INVALID"
            case .none: note = "not a root key of this version (an earlier root, checked when walking)"
            }
            print("  \(kid)  \(note)")
        }
    }
}

/// Fetching documents (pin sets and trust documents) from a server or mirror, for `fetch` and `trust show`.
enum MirrorFetch {
    /// `GET base + path`; a readable ``CLIError`` for a transport failure or a status other than 200.
    static func get(base: String, path: String) async throws -> [UInt8] {
        guard let url = URL(string: base.trimmingSuffix("/") + path) else { throw CLIError("bad --server \(base)") }
        let (data, status) = try await CLIHTTP.send(URLRequest(url: url), unreachable: "cannot fetch \(url)")
        if let status, status != 200 { throw CLIError("\(url) answered \(status)") }
        return Array(data)
    }

    /// `/trust`, then `/trust/1` … up to it: the documents to walk from version 0.
    static func chain(base: String) async throws -> [[UInt8]] {
        let newest = try await get(base: base, path: "/trust")
        guard let payload = TrustRules.unverifiedPayload(newest) else {
            throw CLIError("refused: malformed: \(base)/trust is not a trust document")
        }
        guard payload.version <= TrustDocument.maxWalkSteps else {
            throw CLIError(
                "refused: tooManySteps: /trust is version \(payload.version); at most \(TrustDocument.maxWalkSteps) per update"
            )
        }
        var chain: [[UInt8]] = []
        for version in 1..<max(payload.version, 1) {
            chain.append(try await get(base: base, path: "/trust/\(version)"))
        }
        chain.append(newest)
        return chain
    }
}
