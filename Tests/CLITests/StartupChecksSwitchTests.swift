import Foundation
import TestSupport
import Testing

/// `PINSET_MEASURE_STARTUP_CHECKS=off` (bench/scale.sh only: what issue 41's start-up checks cost): the server says
/// loudly that its checks are off, and they are; without it a damaged document still refuses the start.
@Suite(.serialized, .blocking) struct StartupChecksSwitchTests {
    @Test func theMeasurementSwitchWarnsAndSkipsTheChecks() throws {
        let d = try OperatorFaultTests.Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server = try d.start()
        let url = try #require(server.url, "\(server.process.stderrText)")
        let created = try LoopbackHTTP(url: url).request(
            "PUT", "/admin/hosts/h1.example.com", token: d.token,
            body:
                #"{"pins":[{"sha256":"\#(HostileDocuments.pin())"},{"sha256":"\#(HostileDocuments.pin())","role":"backup"}]}"#
        )
        try #require(created.status == 201, "\(created.status) \(created.body)")
        server.stop()
        #expect(!server.process.stderrText.contains("PINSET_MEASURE_STARTUP_CHECKS"))
        let damage = try CLIRunner.run(
            "/usr/bin/sqlite3",
            [d.database, "UPDATE document SET body = CAST(replace(CAST(body AS TEXT), 'ey', 'eX') AS BLOB)"])
        try #require(damage.status == 0, "\(damage.stderr)")

        server = try d.start()
        #expect(server.exitStatus() == 1, "the checks refuse the damaged document")

        server = try d.start(environment: ["PINSET_MEASURE_STARTUP_CHECKS": "off"])
        defer { server.stop() }
        #expect(server.url != nil, "\(server.process.stderrText)")
        let stderr = server.process.stderrText
        #expect(
            stderr.contains("PINSET_MEASURE_STARTUP_CHECKS=off: the start-up checks are off (for benchmarks only)"),
            "\(stderr)")
    }
}
