import Foundation
import TestSupport
import Testing

/// Issue 40, item 10: the data directory the server makes is 0700, and the database, its WAL and SHM and every
/// backup are 0600, whatever the umask (here 000, the worst).
@Suite(.blocking) struct PrivateFileModeTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func databaseWALAndBackupsAreOwnerOnly() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        let db = data + "/pinset.sqlite"
        let server = try ProcessRunner.start(
            "/bin/sh",
            [
                "-c",
                "umask 000; exec '\(CLIRunner.binary)' serve --dev --db '\(db)' --key '\(dir.path)/key.pem' --port 0",
            ], environment: ["PINSET_TOKEN": nil, "PINSET_SERVER": nil], stdout: .pipe)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let banner = server.readStdout(lines: 5).split(separator: "\n").map(String.init)
        let first = try #require(banner.first)
        let url = String(first[try #require(first.range(of: "http://")).lowerBound...])
        let token = banner.last ?? ""
        let pins = [UInt8(1), 2].map { Data(repeating: $0, count: 32).base64EncodedString() }
        let set = #"{"pins":[{"sha256":"\#(pins[0])"},{"sha256":"\#(pins[1])","role":"backup"}]}"#
        let written = try TestHTTPClient(url: url).request(
            "PUT", "/admin/hosts/a.example.com", headers: ["Authorization": "Bearer \(token)"], body: Array(set.utf8))
        #expect(written.status == 201)
        #expect(try mode(data) == 0o700)
        for file in [db, db + "-wal", db + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            let actual = try mode(file)
            #expect(actual == 0o600, "\(file): \(String(actual, radix: 8))")
        }
        let backups = dir.appendingPathComponent("backups").path
        let backup = try CLIRunner.run(
            "/bin/sh", ["-c", "umask 000; exec '\(CLIRunner.binary)' backup --db '\(db)' --out '\(backups)/b.sqlite'"])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try mode(backups) == 0o700)
        #expect(try mode(backups + "/b.sqlite") == 0o600)
    }
}
