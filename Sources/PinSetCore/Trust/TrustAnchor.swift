import Foundation

/// What the next trust document must chain from (PROTOCOL §6.2 steps 2 and 4): the version in force, its root
/// keys and its threshold. Version 0 is the root keys an app ships (or a server is started with).
public struct TrustAnchor: Sendable, Hashable {
    /// The version in force; the next document must be `version + 1`.
    public let version: Int
    /// The root public keys (raw 32 bytes) by `kid` (RFC 7638 thumbprint, always recomputed).
    public let rootKeys: [String: [UInt8]]
    /// How many distinct keys of ``rootKeys`` must sign the next version.
    public let rootThreshold: Int

    /// Creates an anchor.
    /// - Parameters:
    ///   - version: 0 for shipped root keys, else the version of the trust document in force.
    ///   - rootKeys: raw Ed25519 public keys; duplicates count once.
    ///   - rootThreshold: at least 1 and at most the number of distinct keys.
    ///   - crypto: computes the thumbprints.
    /// - Throws: ``TrustRejectionCode/malformed`` when a key is not 32 bytes or the threshold is out of range.
    public init(version: Int, rootKeys: [[UInt8]], rootThreshold: Int, crypto: some TrustCrypto) throws(TrustRejection)
    {
        var keys: [String: [UInt8]] = [:]
        for key in rootKeys {
            guard key.count == 32 else { throw TrustRejection(.malformed, "a root key is not a 32-byte Ed25519 key") }
            keys[crypto.kid(publicKey: key)] = key
        }
        guard rootThreshold >= 1, rootThreshold <= keys.count else {
            throw TrustRejection(
                .malformed,
                "rootThreshold \(rootThreshold) must be between 1 and the \(keys.count) distinct root key(s)")
        }
        self.version = version
        self.rootKeys = keys
        self.rootThreshold = rootThreshold
    }

    init(version: Int, checkedKeys: [String: [UInt8]], rootThreshold: Int) {
        self.version = version
        self.rootKeys = checkedKeys
        self.rootThreshold = rootThreshold
    }
}

/// A trust document that passed PROTOCOL §6.2 steps 1–4 (and, when checked, step 5).
public struct VerifiedTrustDocument: Sendable, Hashable {
    /// The document exactly as received (what gets stored and served).
    public let raw: [UInt8]
    /// The decoded payload.
    public let payload: TrustPayload
    /// The `kid`s of the keys that made valid signatures (old roots and new roots), sorted.
    public let signers: [String]
    /// The root keys of the payload, by recomputed `kid`.
    public let rootKeys: [String: [UInt8]]
    /// The signing keys of the payload, by recomputed `kid`.
    public let signingKeys: [String: [UInt8]]
    /// The transparency log keys of the payload (`logKeys`, PROTOCOL §7.1), by recomputed `kid`; empty when it
    /// names none.
    public let logKeys: [String: [UInt8]]

    /// The anchor the following version must chain from.
    public var anchor: TrustAnchor {
        TrustAnchor(version: payload.version, checkedKeys: rootKeys, rootThreshold: payload.rootThreshold)
    }
}
