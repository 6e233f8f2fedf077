import Foundation
import Testing
import TransparencyLog

@Suite struct NoteTests {
    /// C2SP signed-note's example: this verifier key verifies this note.
    static let specVKey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
    static let specNote =
        "This is an example message.\n\n\u{2014} example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"

    @Test func theSignedNoteSpecExampleVerifies() throws {
        let key = try VerifierKey(parsing: Self.specVKey, crypto: crypto)
        #expect(key.name == "example.com/foo" && key.keyID == 0x530d_903a && key.type == .ed25519)
        #expect(key.description == Self.specVKey)
        let note = try SignedNote(parsing: Array(Self.specNote.utf8))
        #expect(note.text == Array("This is an example message.\n".utf8))
        #expect(note.bytes == Array(Self.specNote.utf8))
        #expect(try note.verify([key], crypto: crypto).map(\.key) == [key])
        // Another text under the same signature: the known key fails, so the whole note is refused.
        let forged = try SignedNote(
            parsing: Array(Self.specNote.replacingOccurrences(of: "example message", with: "exemple message").utf8))
        #expect(throws: LogError(.badSignature, "the signature of example.com/foo does not verify")) {
            try forged.verify([key], crypto: crypto)
        }
        // Unknown keys are ignored: a key of the same name and another ID verifies nothing, and throws nothing.
        let other = try makeSigner(name: "example.com/foo", type: .ed25519)
        #expect(try note.verify([other.key], crypto: crypto).isEmpty)
    }

    /// The note of signed-note's opening example: its text contains an empty line; the signature follows the last.
    @Test func theTextEndsAtTheLastBlankLine() throws {
        let text = "Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n"
        let note = try SignedNote(
            parsing: Array(
                (text
                    + "\n\u{2014} quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n")
                    .utf8))
        #expect(note.text == Array(text.utf8))
        #expect(note.signatures.map(\.name) == ["quasimodo.example/salvatore"])
    }

    @Test func malformedNotesAreRefused() {
        for bad in [
            "no blank line\n\u{2014} a AAAAAAAA\n", "text\n\n", "text\n\n- a AAAAAAAA\n", "text\n\n\u{2014} a AAAA\n",
            "text\n\n\u{2014} a+b AAAAAAAA\n", "text\n\n\u{2014} a AAAAAAAA", "te\u{7}xt\n\n\u{2014} a AAAAAAAA\n",
            "text\n\n\u{2014} a AAAAAA==AA\n",
        ] {
            #expect(throws: LogError.self, "\(bad)") { try SignedNote(parsing: Array(bad.utf8)) }
        }
    }

    /// Go's x/mod note signs the same checkpoint with the same key: the vkeys are equal, Go's note verifies here,
    /// and the note signed here (OpenSSL, deterministic Ed25519) is byte for byte Go's.
    @Test func goNotesAndOursAreTheSame() throws {
        let goNote = [UInt8](Data(base64Encoded: GoVectors.signedCheckpoint)!)
        let signer = try makeSigner(name: "pins.example.com/log", type: .ed25519, seed: (0..<32).map { UInt8($0) })
        #expect(signer.key.description == GoVectors.vkey)
        let parsed = try SignedNote(parsing: goNote)
        #expect(
            try parsed.verify([try VerifierKey(parsing: GoVectors.vkey, crypto: crypto)], crypto: crypto).count == 1)
        let checkpoint = try Checkpoint(text: parsed.text)
        #expect(checkpoint.size == 1000 && checkpoint.origin == "pins.example.com/log")
        let ours = SignedNote(text: checkpoint.text, signatures: [signer.signature(of: checkpoint.text, timestamp: 0)])
        #expect(ours.bytes == goNote)
    }

    /// C2SP tlog-checkpoint's example body, and the cosignature of tlog-cosignature's example: its timestamp is the
    /// one of the spec's signed-message example (1679315147).
    @Test func checkpointAndCosignatureOfTheSpecs() throws {
        let text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
        let note = try SignedNote(
            parsing: Array(
                (text + "\n"
                    + "\u{2014} example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
                    + "\u{2014} witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n")
                    .utf8))
        let checkpoint = try Checkpoint(text: note.text)
        #expect(checkpoint.origin == "example.com/behind-the-sofa" && checkpoint.size == 20_852_163)
        #expect(checkpoint.rootHash == b64("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I="))
        #expect(checkpoint.text == Array(text.utf8))
        let cosignature = note.signatures[1]
        #expect(cosignature.signature.count == 72)
        #expect(cosignature.signature[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == 1_679_315_147)
        #expect(
            Cosignature.message(timestamp: 1_679_315_147, checkpointText: note.text)
                == Array(("cosignature/v1\ntime 1679315147\n" + text).utf8))
        for bad in [
            "o\n01\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", "o\n1\nAAAA\n",
            "\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", "o\n1\n",
            "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n",
        ] {
            #expect(throws: LogError.self, "\(bad)") { try Checkpoint(text: Array(bad.utf8)) }
        }
        let withExtension = try Checkpoint(text: Array((text + "ext line\n").utf8))
        #expect(withExtension.extensions == ["ext line"] && withExtension.text == Array((text + "ext line\n").utf8))
    }

    @Test func cosignaturesVerifyWithTheirTimestamp() throws {
        let log = try makeSigner(name: "pins.example.com/log", type: .ed25519)
        let witness = try makeSigner(name: "witness.example/w1", type: .cosignature)
        #expect(
            witness.key.keyID
                == VerifierKey.keyID(
                    name: "witness.example/w1", type: .cosignature, publicKey: witness.key.publicKey, crypto: crypto))
        #expect(
            witness.key.keyID
                != VerifierKey.keyID(
                    name: "witness.example/w1", type: .ed25519, publicKey: witness.key.publicKey, crypto: crypto))
        let text = try Checkpoint(origin: "pins.example.com/log", size: 0, rootHash: hasher.emptyRoot).text
        let note = SignedNote(
            text: text,
            signatures: [log.signature(of: text, timestamp: 0), witness.signature(of: text, timestamp: 1_700_000_000)])
        let reparsed = try SignedNote(parsing: note.bytes)
        let verified = try reparsed.verify([log.key, witness.key], crypto: crypto)
        #expect(verified.map(\.key) == [log.key, witness.key])
        #expect(verified.map(\.timestamp) == [nil, 1_700_000_000])
        #expect(try VerifierKey(parsing: witness.key.description, crypto: crypto) == witness.key)
    }

    @Test func malformedVerifierKeysAreRefused() {
        for bad in [
            "example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  // wrong ID
            "example.com/foo+530D903A+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  // upper-case hex
            "example.com/foo+530d903a+AukyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  // unknown type
            "example.com/foo+530d903a", "+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
        ] {
            #expect(throws: LogError.self, "\(bad)") { try VerifierKey(parsing: bad, crypto: crypto) }
        }
    }
}
