import PinSetCore

extension LogPolicy {
    /// This policy with `publicKeys` accepted as further keys of every log it names (PROTOCOL §7.1: a trust
    /// document's `logKeys`, so that a log key rotates like a signing key without a new policy).
    ///
    /// A JWK carries no origin, so each key is added under the origin of each policy log (its vkey name); a key
    /// the policy already holds, or that is not 32 bytes, is skipped. Witnesses and the quorum are unchanged.
    /// - Parameters:
    ///   - publicKeys: raw Ed25519 public keys (32 bytes each).
    ///   - crypto: computes the key IDs.
    public func addingLogKeys(_ publicKeys: some Sequence<[UInt8]>, crypto: any TrustCrypto) -> LogPolicy {
        var logs = self.logs
        var known = Set(logs.map(\.key))
        for origin in Set(self.logs.map(\.key.name)).sorted() {
            for publicKey in publicKeys {
                guard let key = try? VerifierKey(name: origin, type: .ed25519, publicKey: publicKey, crypto: crypto),
                    known.insert(key).inserted
                else { continue }
                logs.append(Log(key: key, url: self.logs.first { $0.key.name == origin }?.url))
            }
        }
        return LogPolicy(logs: logs, witnesses: witnesses, groups: groups, quorum: quorum)
    }

    /// This policy without `keys` (PROTOCOL §7.4: a log key that signed a fork is trusted no more). A log whose
    /// every key is removed is no longer in the policy: its checkpoints are then of an unknown origin.
    public func removingLogKeys(_ keys: Set<VerifierKey>) -> LogPolicy {
        guard !keys.isEmpty else { return self }
        return LogPolicy(
            logs: logs.filter { !keys.contains($0.key) }, witnesses: witnesses, groups: groups, quorum: quorum)
    }

    private init(logs: [Log], witnesses: [Witness], groups: [String: Group], quorum: String) {
        self.logs = logs
        self.witnesses = witnesses
        self.groups = groups
        self.quorum = quorum
    }
}
