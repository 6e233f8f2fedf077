import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetOpenSSL
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer
@testable import PinSetStorage

/// A pin server with a transparency log (PROTOCOL §7), in process over a real SQLite file and a real listener,
/// and its witnesses as real `pinset witness` processes; checks of what it serves, as a client would make them.
enum LogFixture {
    static let origin = "pins.test/log"
    static let crypto: any TrustCrypto = OpenSSLTrustCrypto()
    static let hasher = MerkleHasher(crypto: crypto)
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/pinset").path

    /// The log key of `server` (made in its folder the first time), as its vkey.
    static func logKey(_ server: TestServer) throws -> VerifierKey {
        let keyPath = server.directory.appendingPathComponent("log-key.pem").path
        if !FileManager.default.fileExists(atPath: keyPath) {
            try run("openssl", "genpkey", "-algorithm", "ed25519", "-out", keyPath)
            try run("chmod", "600", keyPath)
        }
        return try NoteSigner(name: origin, type: .ed25519, key: Ed25519SigningKey.load(pemFile: keyPath)).key
    }

    /// Turns the log on for `server`, with `witnesses`, and restarts it. Returns the log's vkey.
    @discardableResult
    static func enableLog(
        _ server: TestServer, witnesses: [WitnessProcess] = [], retry: TimeInterval = 10, deadline: TimeInterval = 5
    ) throws -> VerifierKey {
        let key = try logKey(server)
        server.stop()
        server.configuration.log = LogConfiguration(
            keyPath: server.directory.appendingPathComponent("log-key.pem").path, origin: origin,
            witnesses: witnesses.map(\.endpoint), witnessDeadline: deadline, witnessRetryInterval: retry)
        try server.start()
        return key
    }

    /// A tlog-policy for the log and `witnesses`, all of which must cosign.
    static func policy(log: VerifierKey, witnesses: [WitnessProcess]) throws -> LogPolicy {
        var lines = ["log \(log)"]
        for (index, witness) in witnesses.enumerated() { lines.append("witness w\(index) \(witness.vkey)") }
        if witnesses.isEmpty {
            lines.append("quorum none")
        } else {
            lines.append("group all all " + witnesses.indices.map { "w\($0)" }.joined(separator: " "))
            lines.append("quorum all")
        }
        return try LogPolicy(parsing: Array(lines.joined(separator: "\n").utf8), crypto: crypto)
    }

    /// Fetches `path` (a document) and `path + "/proof"`, checks the proof's own ETag, and verifies the proof
    /// for the exact bytes served under `policy`. Returns the proof.
    @discardableResult
    static func verifiedProof(_ server: TestServer, _ path: String, policy: LogPolicy) throws -> LogProof {
        let document = try server.client.request("GET", path)
        #expect(document.status == 200)
        let answer = try server.client.request("GET", path + "/proof")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "text/plain; charset=utf-8")
        // PROTOCOL §7.3: the proof's ETag is its own (it changes when cosignatures arrive).
        #expect(answer.header("ETag") == PublishedDocument.etag(for: answer.body))
        let proof = try LogProof(parsing: answer.body)
        _ = try LogProofVerifier(policy: policy, crypto: crypto).verify(entry: document.body, proof: proof)
        return proof
    }

    /// The checkpoint served at `/log/checkpoint`.
    static func checkpoint(_ server: TestServer) throws -> (note: SignedNote, body: Checkpoint) {
        let answer = try server.client.request("GET", "/log/checkpoint")
        #expect(answer.status == 200)
        let note = try SignedNote(parsing: answer.body)
        return (note, try Checkpoint(text: note.text))
    }

    /// A reader of the tiles the server serves, as a monitor fetches them.
    static func tiles(_ server: TestServer, treeSize: Int) -> TileReader {
        TileReader(treeSize: treeSize, hasher: hasher) { tile in
            let answer = try server.client.request("GET", "/log/" + tile.path)
            guard answer.status == 200 else { throw LogError(.missingHash, "\(tile.path): \(answer.status)") }
            return answer.body
        }
    }

    /// Every entry of the log, from the served entry bundles.
    static func entries(_ server: TestServer, treeSize: Int) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var index = 0
        while entries.count < treeSize {
            let width = min(Tile.fullWidth, treeSize - index * Tile.fullWidth)
            let answer = try server.client.request(
                "GET", "/log/" + Tile(level: 0, index: index, width: width).entriesPath)
            #expect(answer.status == 200)
            entries += try EntryBundle.decode(answer.body)
            index += 1
        }
        return entries
    }

    /// Polls `condition` every 50 ms for at most `seconds`.
    static func eventually(_ seconds: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        repeat {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < end
        return try condition()
    }
}

/// `pinset witness` as a real process on loopback, following the test log; its URL and vkey from the banner.
final class WitnessProcess {
    let directory: URL
    let name: String
    let logVKey: VerifierKey
    private(set) var process: ChildProcess?
    private(set) var port = 0
    private(set) var vkey = ""

    /// Starts a witness named `name` with a new key in `directory`, on a free port (or `port`).
    init(name: String, logVKey: VerifierKey, directory: URL, port: Int = 0) throws {
        self.directory = directory
        self.name = name
        self.logVKey = logVKey
        let key = directory.appendingPathComponent("\(name)-key.pem").path
        try run("openssl", "genpkey", "-algorithm", "ed25519", "-out", key)
        try run("chmod", "600", key)
        try start(port: port)
    }

    /// (Re)starts the process, keeping its key and database.
    func start(port: Int? = nil) throws {
        let process = try ProcessRunner.start(
            LogFixture.binary,
            [
                "witness", "--name", name, "--key", directory.appendingPathComponent("\(name)-key.pem").path,
                "--db", directory.appendingPathComponent("\(name).sqlite").path, "--log", logVKey.description,
                "--port", String(port ?? self.port),
            ], stdout: .pipe)
        let lines = process.readStdout(lines: 3).split(separator: "\n").map(String.init)
        guard lines.count >= 2, let colon = lines[0].range(of: "127.0.0.1:"), lines[1].hasPrefix("  vkey: ") else {
            process.terminate()
            throw LogError(.malformed, "no witness banner: \(lines)")
        }
        self.port = Int(lines[0][colon.upperBound...]) ?? 0
        vkey = String(lines[1].dropFirst("  vkey: ".count))
        self.process = process
    }

    /// The endpoint the server is given.
    var endpoint: WitnessEndpoint {
        WitnessEndpoint(
            url: URL(string: "http://127.0.0.1:\(port)")!,
            key: try! VerifierKey(parsing: vkey, crypto: LogFixture.crypto))
    }

    func stop() {
        process?.terminate()
        process?.waitUntilExit()
        process = nil
    }

    deinit { stop() }
}
