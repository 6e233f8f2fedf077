import Foundation
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// The run `scripts/write_path_trace.py` profiles (issue 21, "count the files on the path"): a server with the
/// pre-flight and the transparency log on, one host written, then `PINSET_WRITE_PATH_PUTS` − 1 more writes of
/// it. The script runs it twice under coverage (1 and 2 writes) and subtracts: what is left is exactly what one
/// more write ran, a rotation of a live host. Skipped unless that variable is set; `PINSET_WRITE_PATH_LOG=0`
/// leaves the log off, `PINSET_WRITE_PATH_PREFLIGHT=off` the pre-flight.
@Suite(.serialized, .blocking) struct WritePathProfileTests {
    static let puts = Int(ProcessInfo.processInfo.environment["PINSET_WRITE_PATH_PUTS"] ?? "") ?? 0
    static let log = ProcessInfo.processInfo.environment["PINSET_WRITE_PATH_LOG"] != "0"
    static let preflight: PreflightMode =
        ProcessInfo.processInfo.environment["PINSET_WRITE_PATH_PREFLIGHT"] == "off" ? .off : .warn

    @Test(.enabled(if: puts > 0)) func writesOneHostAsManyTimesAsAsked() throws {
        let host = try TLSTestHost()
        let rules = [ConnectToRule(host.mapping)!]
        let server = try TestServer(probes: ProbeConfiguration(preflight: Self.preflight, connectTo: rules, timeout: 3))
        if Self.log { try LogFixture.enableLog(server) }
        let current = try host.pin("current")
        let backups = [try host.pin("backup"), try host.pin("rogue")]
        for write in 0..<Self.puts {
            let body =
                #"{"pins":[{"sha256":"\#(current)","role":"current"},"#
                + #"{"sha256":"\#(backups[write % 2])","role":"backup"}]}"#
            let response = try server.put(host.name, body)
            #expect(response.status == (write == 0 ? 201 : 200), "\(response.text)")
        }
        #expect(try server.client.request("GET", "/pins/\(host.name)").status == 200)
    }
}
