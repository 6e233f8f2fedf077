import PinSetCore

/// A C2SP tlog-policy: the logs accepted, the witnesses known, and the quorum of witnesses whose cosignatures a
/// checkpoint needs.
///
/// Parsing enforces the spec's rules: names are defined before use and only once, group members are listed
/// once, `1 ≤ k ≤ n`, no two logs or witnesses share a public key, exactly one `quorum` line.
public struct LogPolicy: Sendable, Hashable {
    /// A `log <vkey> [<url>]` line.
    public struct Log: Sendable, Hashable {
        /// The log's key; its name is the log's origin.
        public let key: VerifierKey
        /// Where the log is, if given.
        public let url: String?
    }

    /// A `witness <name> <vkey> [<url>]` line.
    public struct Witness: Sendable, Hashable {
        /// The name the policy uses for it.
        public let name: String
        /// The witness's cosigning key (type 0x04).
        public let key: VerifierKey
        /// Its submission prefix, if given.
        public let url: String?
    }

    /// A `group <name> <all|any|k> <name>...` line.
    public struct Group: Sendable, Hashable {
        /// How many members must have witnessed.
        public let threshold: Int
        /// Witness or group names.
        public let members: [String]
    }

    /// The most logs, witnesses and groups accepted (the spec recommends supporting at least 32 of each).
    public static let maxItems = 256

    /// The accepted logs.
    public let logs: [Log]
    /// The known witnesses.
    public let witnesses: [Witness]
    /// The groups, by name.
    public let groups: [String: Group]
    /// The name of the quorum: a witness, a group, or `none`.
    public let quorum: String

    /// Parses a policy file.
    /// - Throws: ``LogErrorCode/malformed``, naming the line.
    public init(parsing bytes: some Collection<UInt8>, crypto: any TrustCrypto) throws(LogError) {
        let raw = Array(bytes)
        guard !raw.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A) || $0 == 0x7F }) else {
            throw LogError(.malformed, "the policy has a control character other than tab and newline")
        }
        var logs: [Log] = []
        var witnesses: [Witness] = []
        var groups: [String: Group] = [:]
        var quorum: String? = nil
        var names: Set<String> = []
        var keys: Set<[UInt8]> = []
        var members: Set<String> = []
        for (number, rawLine) in raw.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let at = "line \(number + 1)"
            let words = rawLine.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map {
                String(decoding: $0, as: UTF8.self)
            }
            guard let keyword = words.first, !keyword.hasPrefix("#") else { continue }
            guard logs.count + witnesses.count + groups.count < Self.maxItems else {
                throw LogError(.malformed, "\(at): more than \(Self.maxItems) logs, witnesses and groups")
            }
            switch keyword {
            case "log":
                guard words.count == 2 || words.count == 3 else {
                    throw LogError(.malformed, "\(at): log <vkey> [<url>]")
                }
                let key = try Self.key(words[1], .ed25519, at, crypto)
                guard keys.insert(key.publicKey).inserted else { throw LogError(.malformed, "\(at): a duplicate key") }
                logs.append(Log(key: key, url: words.count == 3 ? words[2] : nil))
            case "witness":
                guard words.count == 3 || words.count == 4 else {
                    throw LogError(.malformed, "\(at): witness <name> <vkey> [<url>]")
                }
                try Self.define(words[1], in: &names, at)
                let key = try Self.key(words[2], .cosignature, at, crypto)
                guard keys.insert(key.publicKey).inserted else { throw LogError(.malformed, "\(at): a duplicate key") }
                witnesses.append(Witness(name: words[1], key: key, url: words.count == 4 ? words[3] : nil))
            case "group":
                guard words.count >= 4 else { throw LogError(.malformed, "\(at): group <name> <all|any|k> <name>...") }
                let listed = Array(words[3...])
                for member in listed {
                    guard names.contains(member) else {
                        throw LogError(.malformed, "\(at): \(member) is not defined on an earlier line")
                    }
                    // The spec: each name is a group member at most once, so it counts towards the quorum one way.
                    guard members.insert(member).inserted else {
                        throw LogError(.malformed, "\(at): \(member) is already a member of a group")
                    }
                }
                let threshold: Int
                switch words[2] {
                case "all": threshold = listed.count
                case "any": threshold = 1
                default:
                    guard let k = NoteText.decimal(words[2]), k >= 1, k <= listed.count else {
                        throw LogError(.malformed, "\(at): the threshold is all, any or 1 to \(listed.count)")
                    }
                    threshold = k
                }
                try Self.define(words[1], in: &names, at)
                groups[words[1]] = Group(threshold: threshold, members: listed)
            case "quorum":
                guard words.count == 2 else { throw LogError(.malformed, "\(at): quorum <name>") }
                guard quorum == nil else { throw LogError(.malformed, "\(at): a second quorum line") }
                guard words[1] == "none" || names.contains(words[1]) else {
                    throw LogError(.malformed, "\(at): \(words[1]) is not defined on an earlier line")
                }
                quorum = words[1]
            default:
                throw LogError(.malformed, "\(at): unknown keyword \(keyword)")
            }
        }
        guard let quorum else { throw LogError(.malformed, "the policy has no quorum line") }
        self.logs = logs
        self.witnesses = witnesses
        self.groups = groups
        self.quorum = quorum
    }

    /// Whether the witnesses named in `cosigned` (each having a verified cosignature) meet the quorum.
    public func isQuorumMet(by cosigned: Set<String>) -> Bool {
        isWitnessed(quorum, cosigned)
    }

    private func isWitnessed(_ name: String, _ cosigned: Set<String>) -> Bool {
        if name == "none" { return true }
        if let group = groups[name] {
            return group.members.lazy.filter { isWitnessed($0, cosigned) }.count >= group.threshold
        }
        return cosigned.contains(name)
    }

    private static func key(_ text: String, _ type: VerifierKey.SignatureType, _ at: String, _ crypto: any TrustCrypto)
        throws(LogError) -> VerifierKey
    {
        let key: VerifierKey
        do { key = try VerifierKey(parsing: text, crypto: crypto) } catch {
            throw LogError(.malformed, "\(at): \(error.detail)")
        }
        guard key.type == type else {
            throw LogError(
                .malformed, "\(at): the key has signature type 0x0\(key.type.rawValue), not 0x0\(type.rawValue)")
        }
        return key
    }

    private static func define(_ name: String, in names: inout Set<String>, _ at: String) throws(LogError) {
        guard name != "none" else { throw LogError(.malformed, "\(at): none is predefined") }
        guard names.insert(name).inserted else { throw LogError(.malformed, "\(at): \(name) is defined twice") }
    }
}
