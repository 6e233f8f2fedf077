@_exported import TransparencyLog

// The transparency-log checks (PROTOCOL §7.4) live in TransparencyLog with SHA-256 and Ed25519 injected, so the
// server, the CLI and the client run one implementation. Apps import PinSetClient and get them over swift-crypto.

extension LogPolicy {
    /// Parses a C2SP tlog-policy file (the log's vkey, the witnesses' vkeys, the quorum).
    /// - Throws: ``LogErrorCode/malformed``, naming the line.
    public init(parsing bytes: some Collection<UInt8>) throws(LogError) {
        try self.init(parsing: bytes, crypto: SwiftCryptoTrust())
    }
}

extension LogProofVerifier {
    /// A verifier of documents' proofs under `policy`, over swift-crypto.
    public init(policy: LogPolicy) {
        self.init(policy: policy, crypto: SwiftCryptoTrust())
    }
}
