import Foundation
import OpenSSLCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// Issue 40, item 12: `log watch` takes its webhook from PINSET_LOG_WEBHOOK, so that a URL with credentials is not
/// on the command line for `ps` to show.
@Suite(.blocking) struct LogWatchWebhookEnvironmentTests {
    @Test func theWebhookComesFromTheEnvironment() throws {
        let directory = try makeTemporaryDirectory("pinset-logwatch-env")
        defer { try? FileManager.default.removeItem(at: directory) }
        let posted = directory.appendingPathComponent("posted")
        let (receiver, hook) = try LogWatchCommandTests.webhookReceiver(posted)
        defer {
            receiver.kill()
            receiver.waitUntilExit()
        }
        let logKey = try Ed25519SigningKey.generate()
        let vkey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key.description
        let server = try LogServer(logKey: logKey, witnesses: [])
        try server.write([LogWatchCommandTests.document("a.example.com", 1)])
        _ = try server.sign()
        let root = directory.appendingPathComponent("log")
        try LogWatchCommandTests.mirror(server, to: root)
        let unset = ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("PINSET_") }
        var environment = Dictionary(uniqueKeysWithValues: unset.map { ($0, String?.none) })
        environment["PINSET_LOG_WEBHOOK"] = hook
        let watch = try ProcessRunner.run(
            WitnessProcessTests.binary,
            ["log", "watch", root.path, "--hosts", "*.example.com", "--log-key", vkey, "--once"],
            environment: environment)
        #expect(watch.status == 0, "\(watch.errorText)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: posted)) as? [String: Any])
        #expect(document["event"] as? String == "document" && document["host"] as? String == "a.example.com")
    }
}
