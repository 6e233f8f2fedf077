import Foundation
import TestSupport
import Testing

/// `pinset pin FILE` agrees with the openssl CLI for every key kind.
@Suite(.blocking) struct PinCommandTests {
    static let keyKinds: [(name: String, args: String)] = [
        ("rsa2048", "-newkey rsa:2048"), ("rsa4096", "-newkey rsa:4096"),
        ("p256", "-newkey ec -pkeyopt ec_paramgen_curve:P-256"),
        ("p384", "-newkey ec -pkeyopt ec_paramgen_curve:P-384"),
        ("ed25519", "-newkey ed25519"),
    ]

    @Test func spkiPinsMatchOpenSSLForEveryKeyKindAndBundle() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bundle = ""
        var expected: [String] = []
        for kind in Self.keyKinds {
            try CLIRunner.shell(
                "openssl req -x509 \(kind.args) -nodes -keyout \(kind.name).key -out \(kind.name).pem -days 2 -subj /CN=\(kind.name).example 2>/dev/null",
                in: dir)
            let openssl = try CLIRunner.shell(
                "openssl x509 -in \(kind.name).pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
                in: dir
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            let ours = try CLIRunner.pinset(["pin", dir.appendingPathComponent("\(kind.name).pem").path])
            #expect(ours.status == 0)
            #expect(ours.stdout == "\(openssl)  CN=\(kind.name).example\n", "\(kind.name)")
            bundle += try String(contentsOf: dir.appendingPathComponent("\(kind.name).pem"), encoding: .utf8)
            expected.append("\(openssl)  CN=\(kind.name).example")

            // DER input and the public key file give the same pin.
            try CLIRunner.shell("openssl x509 -in \(kind.name).pem -outform der -out \(kind.name).der", in: dir)
            try CLIRunner.shell("openssl pkey -in \(kind.name).key -pubout -out \(kind.name).pub", in: dir)
            let der = try CLIRunner.pinset(["pin", dir.appendingPathComponent("\(kind.name).der").path])
            #expect(der.stdout.hasPrefix(openssl + "  "))
            let pub = try CLIRunner.pinset(["pin", dir.appendingPathComponent("\(kind.name).pub").path])
            #expect(pub.stdout == "\(openssl)  (public key)\n")
        }
        let all = try CLIRunner.pinset(["pin", "-"], stdin: Data(bundle.utf8))
        #expect(all.status == 0)
        #expect(all.stdout.split(separator: "\n").map(String.init) == expected)
    }

    @Test func certificateTypeMatchesOpenSSLDigestOfDER() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try CLIRunner.shell(
            "openssl req -x509 -newkey ed25519 -nodes -keyout k.pem -out c.pem -days 2 -subj /CN=c.example 2>/dev/null",
            in: dir)
        let openssl = try CLIRunner.shell(
            "openssl x509 -in c.pem -outform der | openssl dgst -sha256 -binary | base64", in: dir
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let ours = try CLIRunner.pinset(["pin", "--type", "certificate", dir.appendingPathComponent("c.pem").path])
        #expect(ours.stdout == "\(openssl)  CN=c.example\n")
    }

    @Test func unreadableOrInvalidInputFailsWithAReason() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try CLIRunner.pinset(["pin", dir.appendingPathComponent("nope.pem").path])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read"))
        let garbage = try CLIRunner.pinset(["pin", "-"], stdin: Data("hello".utf8))
        #expect(garbage.status != 0)
        #expect(garbage.stderr.contains("not a certificate"))
        let badType = try CLIRunner.pinset(["pin", "--type", "md5", "-"])
        #expect(badType.status != 0)
    }
}
