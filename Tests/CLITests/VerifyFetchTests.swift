import Foundation
import TestSupport
import Testing

/// `pinset verify` and `pinset fetch` accept good documents and refuse every hostile class of PROTOCOL §5.
@Suite(.blocking) struct VerifyFetchTests {
    @Test func verifyAcceptsAGoodDocumentWithEveryTrustKeyForm() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let docs = try HostileDocuments(dir: dir, name: "trusted")
        let file = dir.appendingPathComponent("good.json")
        try docs.document(payload: HostileDocuments.payload(host: "a.example", version: 3)).write(to: file)
        try CLIRunner.shell("openssl pkey -in trusted.pem -pubout -out trusted.pub", in: dir)
        for key in [docs.key, dir.appendingPathComponent("trusted.pub").path] {
            let result = try CLIRunner.pinset(
                ["verify", file.path, "--host", "a.example", "--trust-key", key, "--min-version", "3"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("verified: signed by kid \(docs.kid)"))
            #expect(result.stdout.contains("version:           3"))
        }
    }

    @Test func verifyRefusesEveryHostileClassWithTheReasonLast() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let docs = try HostileDocuments(dir: dir, name: "trusted")
        let other = try HostileDocuments(dir: dir, name: "other")
        for hostile in try docs.hostileCases(host: { "\($0).example" }, other: other) {
            let file = dir.appendingPathComponent("\(hostile.name).json")
            try hostile.body.write(to: file)
            let result = try CLIRunner.pinset(
                ["verify", file.path, "--host", hostile.host, "--trust-key", docs.key] + hostile.extra)
            #expect(result.status == 1, "\(hostile.name)")
            #expect(
                result.lastErrorLine.hasPrefix("Error: refused: \(hostile.code): "), "\(hostile.name): \(result.stderr)"
            )
            #expect(!result.stdout.contains("verified"), "\(hostile.name)")
        }
    }

    @Test func fetchFromNginxRefusesEveryHostileClass() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let docs = try HostileDocuments(dir: dir, name: "trusted")
        let other = try HostileDocuments(dir: dir, name: "other")
        let root = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("pins"), withIntermediateDirectories: true)
        let cases = try docs.hostileCases(host: { "\($0).example" }, other: other)
        for hostile in cases { try hostile.body.write(to: root.appendingPathComponent("pins/\(hostile.host)")) }
        try docs.document(payload: HostileDocuments.payload(host: "good.example", version: 2))
            .write(to: root.appendingPathComponent("pins/good.example"))
        let nginx = try Nginx(root: root, work: dir)
        defer { nginx.stop() }

        let good = try CLIRunner.pinset(["fetch", "good.example", "--server", nginx.url, "--trust-key", docs.key])
        #expect(good.status == 0, "\(good.stderr)")
        for hostile in cases {
            let result = try CLIRunner.pinset(
                ["fetch", hostile.host, "--server", nginx.url, "--trust-key", docs.key] + hostile.extra)
            #expect(result.status == 1, "\(hostile.name)")
            #expect(
                result.lastErrorLine.hasPrefix("Error: refused: \(hostile.code): "), "\(hostile.name): \(result.stderr)"
            )
        }
        let missing = try CLIRunner.pinset(["fetch", "nowhere.example", "--server", nginx.url, "--trust-key", docs.key])
        #expect(missing.status == 1)
        #expect(missing.lastErrorLine.contains("404"))
    }
}
