import Foundation

/// The rules of PROTOCOL §6.2, as pure functions over bytes, shared by the client (``TrustCrypto`` from
/// swift-crypto), the server and the CLI (from OpenSSL), so that they cannot drift apart.
public enum TrustRules {
    /// Checks `bytes` as the trust document following `anchor`: steps 1–4, in order. Step 5 (time) is
    /// ``checkTime(_:now:skew:)``, applied by the caller to the newest version reached only.
    /// - Parameters:
    ///   - bytes: the body exactly as received.
    ///   - anchor: the trust in force (version N).
    ///   - crypto: SHA-256 and Ed25519 verification.
    ///   - maxBytes: default 65,535 bytes (``TrustDocument/maxBytes``).
    /// - Returns: the verified document, or the first rule it broke.
    public static func verifyNext(
        _ bytes: some Collection<UInt8>, after anchor: TrustAnchor, crypto: some TrustCrypto,
        maxBytes: Int = TrustDocument.maxBytes
    ) -> Result<VerifiedTrustDocument, TrustRejection> {
        Result { () throws(TrustRejection) in
            let parsed = try parse(bytes, crypto: crypto, maxBytes: maxBytes).get()
            // 2. at least rootThreshold distinct keys of the trust in force.
            let oldSigners = parsed.validSigners(among: anchor.rootKeys, crypto: crypto)
            guard oldSigners.count >= anchor.rootThreshold else {
                throw TrustRejection(
                    .thresholdNotMet,
                    "\(oldSigners.count) distinct root key(s) of version \(anchor.version) signed; \(anchor.rootThreshold) are required"
                )
            }
            // 3. at least its own rootThreshold distinct keys of its own rootKeys.
            let newSigners = try parsed.ownRootSigners(crypto: crypto, note: " (every new root key must co-sign)")
            // 4. exactly N+1.
            let version = parsed.payload.version
            guard version == anchor.version + 1 else {
                if version <= anchor.version {
                    throw TrustRejection(
                        .rollback, "version \(version) is not newer than version \(anchor.version) in force")
                }
                throw TrustRejection(
                    .versionNotNext,
                    "version \(version) does not follow version \(anchor.version); fetch /trust/\(anchor.version + 1) first"
                )
            }
            return parsed.verified(signers: oldSigners.union(newSigners))
        }
    }

    /// Checks a document that chains from nothing the caller holds: steps 1 and 3 only (structure, and its own
    /// root keys signed it). For a trust document shipped inside an app, which the app binary vouches for.
    public static func verifySelfSigned(
        _ bytes: some Collection<UInt8>, crypto: some TrustCrypto, maxBytes: Int = TrustDocument.maxBytes
    ) -> Result<VerifiedTrustDocument, TrustRejection> {
        Result { () throws(TrustRejection) in
            let parsed = try parse(bytes, crypto: crypto, maxBytes: maxBytes).get()
            return parsed.verified(signers: try parsed.ownRootSigners(crypto: crypto, note: ""))
        }
    }

    /// Step 5: `issuedAt - skew ≤ now < expiresAt + skew`, or the rule broken.
    public static func checkTime(_ payload: TrustPayload, now: Date, skew: TimeInterval) -> TrustRejection? {
        if now < payload.issuedAt.addingTimeInterval(-skew) {
            return TrustRejection(
                .notYetValid,
                "trust version \(payload.version) is issued at \(RFC3339.format(payload.issuedAt)), in the future (now \(RFC3339.format(now)))"
            )
        }
        if now >= payload.expiresAt.addingTimeInterval(skew) {
            return TrustRejection(
                .expired,
                "trust version \(payload.version) expired at \(RFC3339.format(payload.expiresAt)) (now \(RFC3339.format(now)))"
            )
        }
        return nil
    }

    /// Reads the payload of a trust document without checking any signature: for tools that show a document,
    /// and to learn which version `/trust` offers before walking to it. Never trust what this returns.
    public static func unverifiedPayload(_ bytes: some Collection<UInt8>) -> TrustPayload? {
        guard bytes.count <= TrustDocument.maxBytes, let document = try? TrustDocument.decode(json: bytes),
            let payload = Base64URL.decode(document.payload)
        else { return nil }
        return try? JSONDecoder().decode(TrustPayload.self, from: Data(payload))
    }

    /// A document after step 1: decoded, headers checked, payload valid.
    struct Parsed {
        let raw: [UInt8]
        let document: TrustDocument
        let payload: TrustPayload
        /// (kid, signing input, signature bytes) of every signature whose signature member is 64 bytes.
        let signatures: [(kid: String, input: [UInt8], signature: [UInt8])]
        let rootKeys: [String: [UInt8]]
        let signingKeys: [String: [UInt8]]
        let logKeys: [String: [UInt8]]

        /// The distinct kids among `keys` whose signature verifies; every other signature is ignored.
        func validSigners(among keys: [String: [UInt8]], crypto: some TrustCrypto) -> Set<String> {
            var signers = Set<String>()
            for entry in signatures where !signers.contains(entry.kid) {
                guard let key = keys[entry.kid] else { continue }
                if crypto.isValidEd25519Signature(entry.signature, for: entry.input, publicKey: key) {
                    signers.insert(entry.kid)
                }
            }
            return signers
        }

        /// Step 3: the distinct kids of its own root keys that signed it, or ``TrustRejectionCode/newRootsDidNotSign``
        /// when they are fewer than its own `rootThreshold` (`note` ends that rejection's detail).
        func ownRootSigners(crypto: some TrustCrypto, note: String) throws(TrustRejection) -> Set<String> {
            let signers = validSigners(among: rootKeys, crypto: crypto)
            guard signers.count >= payload.rootThreshold else {
                throw TrustRejection(
                    .newRootsDidNotSign,
                    "\(signers.count) distinct key(s) of its own rootKeys signed version \(payload.version); its rootThreshold is \(payload.rootThreshold)\(note)"
                )
            }
            return signers
        }

        func verified(signers: Set<String>) -> VerifiedTrustDocument {
            VerifiedTrustDocument(
                raw: raw, payload: payload, signers: signers.sorted(), rootKeys: rootKeys, signingKeys: signingKeys,
                logKeys: logKeys)
        }
    }

    /// Step 1: size, general serialization, exact signature headers, and a well-formed payload.
    static func parse(_ bytes: some Collection<UInt8>, crypto: some TrustCrypto, maxBytes: Int) -> Result<
        Parsed, TrustRejection
    > {
        guard bytes.count <= maxBytes else {
            return .failure(
                TrustRejection(
                    .tooLarge, "the trust document is \(bytes.count) bytes; at most \(maxBytes) are accepted"))
        }
        let raw = Array(bytes)
        guard let document = try? TrustDocument.decode(json: raw) else {
            return .failure(
                TrustRejection(
                    .malformed,
                    "not a JWS in general JSON serialization: a string payload and an array of signatures with string protected and signature members"
                ))
        }
        if let name = JSONRepeatedMembers.first(in: raw) {
            return .failure(TrustRejection(.malformed, "the document repeats the member \"\(name.prefix(40))\""))
        }
        guard !document.signatures.isEmpty, document.signatures.count <= 64 else {
            return .failure(TrustRejection(.malformed, "a trust document carries between 1 and 64 signatures"))
        }
        var signatures: [(kid: String, input: [UInt8], signature: [UInt8])] = []
        for entry in document.signatures {
            guard let headerBytes = Base64URL.decode(entry.protected),
                JSONRepeatedMembers.first(in: headerBytes) == nil,
                let header = try? JSONDecoder().decode([String: String].self, from: Data(headerBytes))
            else {
                return .failure(
                    TrustRejection(
                        .malformedHeader,
                        "a protected header is not base64url of a JSON object of strings, each member once"))
            }
            guard header["alg"] == TrustDocument.algorithm else {
                return .failure(
                    TrustRejection(
                        .unsupportedAlgorithm,
                        "alg is \(header["alg"].map { "\"\($0.prefix(40))\"" } ?? "missing"); only \"EdDSA\" is accepted"
                    ))
            }
            guard header["typ"] == TrustDocument.type else {
                return .failure(
                    TrustRejection(
                        .wrongType,
                        "typ is \(header["typ"].map { "\"\($0.prefix(40))\"" } ?? "missing"); it must be \"\(TrustDocument.type)\""
                    ))
            }
            guard let kid = header["kid"], header.count == 3 else {
                return .failure(
                    TrustRejection(.malformedHeader, "a protected header must hold exactly alg, kid and typ"))
            }
            guard let signature = Base64URL.decode(entry.signature) else {
                return .failure(TrustRejection(.malformed, "a signature is not base64url"))
            }
            signatures.append((kid, document.signingInput(protected: entry.protected), signature))
        }
        guard let payloadBytes = Base64URL.decode(document.payload) else {
            return .failure(TrustRejection(.malformed, "the payload is not base64url"))
        }
        if let name = JSONRepeatedMembers.first(in: payloadBytes) {
            return .failure(TrustRejection(.malformed, "the payload repeats the member \"\(name.prefix(40))\""))
        }
        let payload: TrustPayload
        do {
            payload = try JSONDecoder().decode(TrustPayload.self, from: Data(payloadBytes))
        } catch {
            return .failure(TrustRejection(.malformed, "the payload is not a trust payload: \(error)"))
        }
        guard payload.version >= 1 else { return .failure(TrustRejection(.malformed, "version must be at least 1")) }
        let rootKeys: [String: [UInt8]]
        let signingKeys: [String: [UInt8]]
        let logKeys: [String: [UInt8]]
        do {
            rootKeys = try keys(payload.rootKeys, "rootKeys", crypto: crypto)
            signingKeys = try keys(payload.signingKeys, "signingKeys", crypto: crypto)
            logKeys = try keys(payload.logKeys ?? [], "logKeys", crypto: crypto)
        } catch {
            return .failure(error)
        }
        guard payload.rootThreshold >= 1, payload.rootThreshold <= rootKeys.count else {
            return .failure(
                TrustRejection(
                    .malformed,
                    "rootThreshold \(payload.rootThreshold) must be between 1 and the \(rootKeys.count) distinct root key(s)"
                ))
        }
        return .success(
            Parsed(
                raw: raw, document: document, payload: payload, signatures: signatures, rootKeys: rootKeys,
                signingKeys: signingKeys, logKeys: logKeys))
    }

    /// The keys of a JWK list by recomputed thumbprint; a `kid` that is not the thumbprint is refused.
    private static func keys(_ jwks: [Ed25519JWK], _ member: String, crypto: some TrustCrypto) throws(TrustRejection)
        -> [String: [UInt8]]
    {
        guard jwks.count <= 256 else { throw TrustRejection(.malformed, "\(member) lists more than 256 keys") }
        var result: [String: [UInt8]] = [:]
        for jwk in jwks {
            guard let bytes = jwk.publicKeyBytes else {
                throw TrustRejection(.malformed, "\(member) holds a key that is not an Ed25519 public JWK")
            }
            let kid = crypto.kid(publicKey: bytes)
            if let given = jwk.kid, given != kid {
                throw TrustRejection(
                    .malformed,
                    "\(member) holds a key whose kid \"\(given.prefix(60))\" is not its RFC 7638 thumbprint \(kid)")
            }
            result[kid] = bytes
        }
        return result
    }
}
