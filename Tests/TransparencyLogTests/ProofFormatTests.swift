import Testing
import TransparencyLog

@Suite struct ProofFormatTests {
    static let sofa =
        "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n"
        + "\u{2014} example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"

    /// C2SP tlog-witness's example request body, byte for byte.
    @Test func theAddCheckpointExampleOfTheSpec() throws {
        let body =
            "old 20852014\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\njrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n"
            + "5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n\n"
            + Self.sofa
            + "\u{2014} example.com/behind-the-sofa opLqBQsREYCgu6xQkYQwJr9fo45a62DN9EdmHXnZdXNqlcVGlCum2Wks+49/V6267UEjw6QUXTS5Rovnzv++qbSzm9Q=\n"
        let request = try AddCheckpointRequest(parsing: Array(body.utf8))
        #expect(request.oldSize == 20_852_014)
        #expect(request.consistencyProof.count == 4)
        #expect(request.consistencyProof[0] == b64("PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw="))
        #expect(request.checkpoint.signatures.count == 2)
        #expect(request.bytes == Array(body.utf8))
        for bad in [
            "old 01\n\n" + Self.sofa, "new 1\n\n" + Self.sofa, "old 1\nAAAA\n\n" + Self.sofa, "old 1\n" + Self.sofa,
        ] {
            #expect(throws: LogError.self) { try AddCheckpointRequest(parsing: Array(bad.utf8)) }
        }
    }

    /// C2SP tlog-witness's example response: three cosignature lines of 4 + 8 + 64 bytes.
    @Test func theWitnessResponseExampleOfTheSpec() throws {
        let lines = [
            "\u{2014} witness.example/w1 CMp+6LWBU0anHGH5aNDTJkH/gj79sG+T6+iP2ThYN5krrDJbR1HDnucjL39QsZTSvVjyQLrdk3DXDqI5G2HgLatVs0pWh6Up69HVOw==",
            "\u{2014} witness.example/w1 I7rEps0pvK2UqkS2gSpVUDhrhVtQV9lgF6pRrWAvjJHjyWpW7VcE3SiOlVlbQNt64vWhO+DlkL0+UfzuOBMh9ChdMkP1vi/lCAsmlw==",
            "\u{2014} witness.example/w2 AWui8Sk55XjYLOijihBjhqEH6nS1ndDymE0a+6idX7pLcnoB+dhnz0854aLZgrrKbYKA7nC3HNJhm/kWl7oJlqU3rXXvpysAdyP3wQ==",
        ]
        let signatures = try lines.map { try NoteSignature(line: $0[...]) }
        #expect(signatures.map(\.name) == ["witness.example/w1", "witness.example/w1", "witness.example/w2"])
        #expect(signatures.allSatisfy { $0.signature.count == 72 })
        #expect(signatures.map(\.line) == lines.map { $0 + "\n" })
    }

    /// C2SP tlog-proof's example, with its elided checkpoint signatures replaced by a whole one.
    @Test func theTlogProofExampleOfTheSpec() throws {
        let head =
            "c2sp.org/tlog-proof@v1\nextra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ\nindex 73894\n"
            + "gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=\nB95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=\n"
            + "EKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=\nRoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=\n"
            + "AHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=\n\n"
        let text = head + Self.sofa
        let proof = try LogProof(parsing: Array(text.utf8))
        #expect(proof.index == 73894)
        #expect(proof.extra.map { String(decoding: $0.prefix(11), as: UTF8.self) } == "age-v1.2.1-")
        #expect(proof.inclusionProof.count == 5)
        #expect(try Checkpoint(text: proof.checkpoint.text).size == 20_852_163)
        #expect(proof.bytes == Array(text.utf8))
        let bare = LogProof(index: 0, inclusionProof: [], checkpoint: proof.checkpoint)
        #expect(
            String(decoding: bare.bytes, as: UTF8.self).hasPrefix("c2sp.org/tlog-proof@v1\nindex 0\n\nexample.com/"))
        #expect(try LogProof(parsing: bare.bytes) == bare)
        for bad in [
            "c2sp.org/tlog-proof@v2\nindex 1\n\n", "c2sp.org/tlog-proof@v1\nindex 01\n\n", "c2sp.org/tlog-proof@v1\n\n",
        ] {
            #expect(throws: LogError.self) { try LogProof(parsing: Array((bad + Self.sofa).utf8)) }
        }
    }
}
