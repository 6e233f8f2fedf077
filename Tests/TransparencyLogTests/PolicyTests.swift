import Testing
import TransparencyLog

@Suite struct PolicyTests {
    static func keys(_ count: Int, _ type: VerifierKey.SignatureType) throws -> [String] {
        try (0..<count).map { try makeSigner(name: "w\($0).example", type: type).key.description }
    }

    /// C2SP tlog-policy's example, keys filled in: two of the X witnesses and one of the Y witnesses.
    @Test func theExampleOfTheSpec() throws {
        let log = try Self.keys(1, .ed25519)[0]
        let w = try Self.keys(6, .cosignature)
        let text = """
            log \(log)

            witness X1 \(w[0])
            witness X2 \(w[1])
            witness X3 \(w[2])
            group X-witnesses 2 X1 X2 X3

            witness Y1 \(w[3])
            witness Y2 \(w[4])
            \twitness Y3 \(w[5]) https://y3.example/   
            group Y-witnesses any Y1 Y2 Y3
            # a comment
            group X-and-Y all X-witnesses Y-witnesses
            quorum X-and-Y

            """
        let policy = try LogPolicy(parsing: Array(text.utf8), crypto: crypto)
        #expect(policy.logs.count == 1 && policy.witnesses.count == 6 && policy.quorum == "X-and-Y")
        #expect(policy.witnesses[5].url == "https://y3.example/")
        #expect(policy.groups["X-witnesses"]?.threshold == 2)
        #expect(policy.groups["X-and-Y"]?.threshold == 2)
        #expect(policy.isQuorumMet(by: ["X1", "X3", "Y2"]))
        #expect(!policy.isQuorumMet(by: ["X1", "X2", "X3"]))
        #expect(!policy.isQuorumMet(by: ["X1", "Y1", "Y2", "Y3"]))
        #expect(!policy.isQuorumMet(by: []))
    }

    @Test func quorumNoneAndSingleWitness() throws {
        let log = try Self.keys(1, .ed25519)[0]
        let w = try Self.keys(1, .cosignature)[0]
        #expect(try LogPolicy(parsing: Array("log \(log)\nquorum none\n".utf8), crypto: crypto).isQuorumMet(by: []))
        let one = try LogPolicy(parsing: Array("witness a \(w)\nquorum a".utf8), crypto: crypto)
        #expect(one.logs.isEmpty && one.isQuorumMet(by: ["a"]) && !one.isQuorumMet(by: ["b"]))
    }

    @Test func everyRuleOfTheSpecIsEnforced() throws {
        let log = try Self.keys(1, .ed25519)[0]
        let w = try Self.keys(3, .cosignature)
        let bad = [
            "log \(log)\n",  // no quorum
            "witness a \(w[0])\nquorum a\nquorum a\n",  // two quorum lines
            "quorum a\nwitness a \(w[0])\n",  // used before defined
            "witness a \(w[0])\nwitness a \(w[1])\nquorum a\n",  // defined twice
            "witness a \(w[0])\nwitness b \(w[0])\nquorum a\n",  // duplicate key
            "log \(log)\nlog \(log)\nquorum none\n",  // duplicate log
            "witness a \(w[0])\ngroup g 0 a\nquorum g\n",  // k = 0
            "witness a \(w[0])\ngroup g 2 a\nquorum g\n",  // k > n
            "witness a \(w[0])\ngroup g any a a\nquorum g\n",  // member twice
            "witness a \(w[0])\ngroup g any a\ngroup h any a\nquorum h\n",  // member of two groups
            "witness a \(w[0])\ngroup g any\nquorum g\n",  // no member
            "witness none \(w[0])\nquorum none\n",  // none is predefined
            "witness a \(log)\nquorum a\n",  // a log key (0x01) as a witness key
            "log \(w[0])\nquorum none\n",  // a witness key (0x04) as a log key
            "witness a \(w[0])\nquorum a\nfrobnicate\n",  // unknown keyword
            "witness a \(w[0])\r\nquorum a\n",  // control character
        ]
        for text in bad {
            #expect(throws: LogError.self, "\(text)") { try LogPolicy(parsing: Array(text.utf8), crypto: crypto) }
        }
    }
}
