import Foundation
import TestSupport
import Testing

/// Issue 40, item 5, through `pinset serve`: PINSET_ADMIN_PORT (or --admin-port) starts the admin listener on
/// loopback; the admin commands use it, and the public port no longer answers the admin API.
@Suite(.blocking) struct AdminPlaneCommandTests {
    @Test func theAdminPortComesFromTheEnvironmentAndIsLoopback() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "serve", "--dev", "--db", dir.appendingPathComponent("db.sqlite").path, "--key",
                dir.appendingPathComponent("key.pem").path, "--port", "0",
            ], environment: ["PINSET_ADMIN_PORT": "0", "PINSET_ADMIN_BIND": nil, "PINSET_TOKEN": nil], stdout: .pipe)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        // Five lines come whatever the server does (a sixth only with the admin line): read them first, so that a
        // server without an admin listener fails the test instead of leaving it waiting for a line.
        var banner = server.readStdout(lines: 5).split(separator: "\n").map(String.init)
        try #require(banner.contains { $0.contains("admin API") }, "\(banner)")
        if banner.count < 6 { banner += server.readStdout(lines: 1).split(separator: "\n").map(String.init) }
        #expect(banner.count == 6, "\(banner)")
        let publicURL = String(banner[0][try #require(banner[0].range(of: "http://")).lowerBound...])
        let adminLine = try #require(banner.first { $0.contains("admin API") })
        let adminURL = String(adminLine[try #require(adminLine.range(of: "http://")).lowerBound...])
        #expect(adminURL.hasPrefix("http://127.0.0.1:"))
        #expect(adminURL != publicURL)
        let token = banner.last ?? ""
        let pins = [UInt8(1), 2].map { Data(repeating: $0, count: 32).base64EncodedString() }
        let set = try CLIRunner.pinset(
            ["set", "a.example.com", "--pin", pins[0], "--backup", pins[1]],
            environment: ["PINSET_SERVER": adminURL, "PINSET_TOKEN": token])
        #expect(set.status == 0, "\(set.stderr)")
        let onPublic = try CLIRunner.pinset(
            ["hosts"], environment: ["PINSET_SERVER": publicURL, "PINSET_TOKEN": token])
        #expect(onPublic.status != 0 && onPublic.stderr.contains("404"), "\(onPublic.stderr)")
        #expect(try TestHTTPClient(url: publicURL).request("GET", "/pins/a.example.com").status == 200)
    }
}
