import Foundation
import PinSetCore

/// The trust in force for a client configured with root keys (PROTOCOL §6.2): which root keys may sign the next
/// trust document, and which online keys may sign pin documents now.
///
/// An app ships a first state, either root public keys and a threshold (version 0, no signing keys until a trust
/// document is fetched) or a bundled trust document. Later states come only from ``TrustDocumentVerifier``.
public struct TrustState: Sendable, Hashable {
    /// 0 for shipped root keys, else the version of the trust document in force.
    public let version: Int
    /// The root keys that may sign the next version, sorted by `kid`.
    public let rootKeys: [TrustedKey]
    /// How many distinct ``rootKeys`` must sign the next version.
    public let rootThreshold: Int
    /// The online keys whose pin documents are accepted while this state is in force, by `kid`.
    public let signingKeys: [String: TrustedKey]
    /// The transparency log keys the trust document names (`logKeys`, PROTOCOL §7.1), by `kid`; empty at version 0
    /// or when it names none. A client with a tlog-policy accepts each as an additional key of the policy's logs.
    public let logKeys: [String: TrustedKey]
    /// When the trust document was signed; `nil` at version 0.
    public let issuedAt: Date?
    /// When the trust document expires; `nil` at version 0. After it, no new pin document signed by a
    /// delegated key is accepted (freeze protection) until a newer trust document arrives.
    public let expiresAt: Date?
    /// The trust document exactly as received; `nil` at version 0.
    public let document: [UInt8]?
    /// What the next version must chain from.
    package let anchor: TrustAnchor
    /// The exact protected header of a pin document signed by each signing key, decoded (the verifier's fast path).
    package let knownHeaders: [String: JWSHeader]
    /// Checks the next version's signatures and this state's keys.
    package let crypto: any TrustCrypto

    /// Version 0: root public keys shipped in the app, and how many of them must sign trust version 1.
    /// - Parameters:
    ///   - rootKeys: the offline root public keys (never fetched).
    ///   - threshold: at least 1 and at most the number of distinct keys. Default 1.
    ///   - crypto: checks signatures (PinSetClient adds this initialiser without it, using swift-crypto).
    /// - Throws: ``TrustRejectionCode/malformed`` when the threshold is out of range.
    public init(rootKeys: [TrustedKey], threshold: Int = 1, crypto: any TrustCrypto) throws(TrustRejection) {
        let anchor = try TrustAnchor(
            version: 0, rootKeys: rootKeys.map(\.rawRepresentation), rootThreshold: threshold, crypto: crypto)
        self.init(
            anchor: anchor, signingKeys: [:], logKeys: [:], issuedAt: nil, expiresAt: nil, document: nil,
            crypto: crypto)
    }

    /// A trust document shipped in the app, accepted without checking time (PROTOCOL §6.2). Its structure is
    /// checked and its own root keys must have signed it (the app binary vouches for the rest).
    /// - Throws: the ``TrustRejection`` of the first rule it breaks.
    public init(bundledDocument bytes: some Collection<UInt8>, crypto: any TrustCrypto) throws(TrustRejection) {
        switch TrustRules.verifySelfSigned(bytes, crypto: crypto) {
        case .success(let verified): self.init(verified: verified, crypto: crypto)
        case .failure(let rejection): throw rejection
        }
    }

    package init(verified: VerifiedTrustDocument, crypto: any TrustCrypto) {
        self.init(
            anchor: verified.anchor, signingKeys: verified.signingKeys, logKeys: verified.logKeys,
            issuedAt: verified.payload.issuedAt, expiresAt: verified.payload.expiresAt, document: verified.raw,
            crypto: crypto)
    }

    private init(
        anchor: TrustAnchor, signingKeys: [String: [UInt8]], logKeys: [String: [UInt8]], issuedAt: Date?,
        expiresAt: Date?, document: [UInt8]?, crypto: any TrustCrypto
    ) {
        self.anchor = anchor
        self.crypto = crypto
        version = anchor.version
        rootKeys = anchor.rootKeys.values.compactMap { try? TrustedKey(rawRepresentation: $0, crypto: crypto) }.sorted {
            $0.kid < $1.kid
        }
        rootThreshold = anchor.rootThreshold
        var keys: [String: TrustedKey] = [:]
        var headers: [String: JWSHeader] = [:]
        for raw in signingKeys.values {
            guard let key = try? TrustedKey(rawRepresentation: raw, crypto: crypto) else { continue }
            keys[key.kid] = key
            headers[Base64URL.encode(SignedDocument.protectedHeader(kid: key.kid))] = JWSHeader(
                alg: SignedDocument.algorithm, kid: key.kid, typ: SignedDocument.type)
        }
        self.signingKeys = keys
        self.logKeys = logKeys.values.reduce(into: [:]) { result, raw in
            if let key = try? TrustedKey(rawRepresentation: raw, crypto: crypto) { result[key.kid] = key }
        }
        knownHeaders = headers
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.document = document
    }

    /// States are equal when their anchor, keys, times and document are (the crypto provider is not compared).
    public static func == (lhs: TrustState, rhs: TrustState) -> Bool {
        lhs.anchor == rhs.anchor && lhs.signingKeys == rhs.signingKeys && lhs.logKeys == rhs.logKeys
            && lhs.issuedAt == rhs.issuedAt
            && lhs.expiresAt == rhs.expiresAt && lhs.document == rhs.document
    }

    /// Hashes the version and the document.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(document)
    }

    /// Whether the trust document in force has expired at `now` (`now ≥ expiresAt + skew`): freeze protection
    /// is on. Version 0 never expires (it delegates nothing).
    public func isExpired(at now: Date, skew: TimeInterval) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt.addingTimeInterval(skew)
    }
}
