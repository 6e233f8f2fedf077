import Foundation
import TestSupport
import Testing

/// `pinset serve --next-key` (PROTOCOL §6.3, a planned rotation; PINSET_NEXT_KEY in the end-to-end test) and `pinset trust sign --log-key-pub`: the next
/// key in the banner, clear refusals when it cannot work. The rotation itself is PlannedKeyRotationEndToEndTests.
@Suite(.blocking) struct ServeNextKeyTests {
    let serving = ServeLogOptionsTests()

    @Test func theNextKeyIsInTheBannerAndImpossibleOnesAreRefused() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // ServeLogOptionsTests.serve signs with key.pem.
        let current = try serving.key("key.pem", in: directory)
        let next = try serving.key("next.pem", in: directory)
        let started = try serving.serve(["--next-key", next], in: directory)
        #expect(started.stdout.contains("  next signing key: \(next)"), "\(started.stdout)\(started.stderr)")

        let cases: [([String], String)] = [
            (["--next-key", current], "--next-key is the signing key itself"),
            (["--next-key", directory.appendingPathComponent("missing.pem").path], "missing.pem"),
            (["--next-key", next, "--log-key", next], "must not be the next signing key"),
        ]
        for (arguments, message) in cases {
            let output = try serving.serve(arguments, in: directory)
            #expect(output.status != 0, "\(arguments)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
    }

    @Test func trustSignListsLogKeysFromAVKeyOrAKeyFile() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try serving.key("root.pem", in: directory)
        let signing = try serving.key("key.pem", in: directory)
        let logKey = try serving.key("log.pem", in: directory)
        let banner = try serving.serve(["--log-key", logKey, "--log-origin", "pins.test/log"], in: directory)
        let vkey = try #require(
            banner.stdout.split(separator: "\n").first { $0.hasPrefix("  log vkey: ") }?.dropFirst(12))
        let out = directory.appendingPathComponent("trust.json").path
        let signed = try CLIRunner.pinset([
            "trust", "sign", "--root-key", root, "--signing-key-pub", signing, "--log-key-pub", String(vkey),
            "--log-key-pub", logKey, "--version", "1", "--out", out,
        ])
        #expect(signed.status == 0, "\(signed.stderr)")
        // The vkey and the key file name the same key: listed once.
        #expect(signed.stdout.contains("logKeys:       1"), "\(signed.stdout)")

        // A vkey whose key ID does not match its key.
        let cosigner = "w.example+01020304+BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g"
        let refused = try CLIRunner.pinset([
            "trust", "sign", "--root-key", root, "--signing-key-pub", signing, "--log-key-pub", cosigner,
            "--version", "1", "--out", out,
        ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--log-key-pub w.example+") && refused.stderr.contains("not a vkey"))
    }
}
