import Foundation
import PinSetAdminAPI
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 36 item 3: whether a write waits is decided once, by the service from the write's command
/// (``PinSetService/waits(_:)``): a write waits when it probes its host (the pre-flight check is on, or a pin asks for
/// `capture`; a retirement never probes) or when a transparency log signs it. The router asks only for the routes
/// that say they may wait, and runs the command it already made, on the worker thread or off it.
@Suite(.blocking) struct WriteWaitTests {
    private func command(_ change: WriteCommand.Change) -> WriteCommand {
        WriteCommand(host: "a.example", change: change, ifMatch: nil, tokenName: "t")
    }

    private var capturing: SetRequest {
        var leaf = PinInput(role: .current)
        leaf.capture = "leaf"
        return SetRequest(pins: [leaf, pin(.backup)])
    }

    @Test func withoutThePreflightCheckOnlyACaptureWaits() throws {
        var configuration = ServiceConfiguration()
        configuration.probes.preflight = .off
        let f = try ServiceFixture(configuration: configuration)
        #expect(!f.service.waits(command(.replace(ServiceFixture.validSet()))))
        #expect(!f.service.waits(command(.add(PinsRequest(pins: [pin()])))))
        #expect(!f.service.waits(command(.remove(sha256: pin().sha256!, force: false))))
        #expect(!f.service.waits(command(.retire)))
        #expect(f.service.waits(command(.replace(capturing))))
    }

    @Test func withThePreflightCheckEveryWriteButARetirementWaits() throws {
        var configuration = ServiceConfiguration()
        configuration.probes.preflight = .warn
        let f = try ServiceFixture(configuration: configuration)
        #expect(f.service.waits(command(.replace(ServiceFixture.validSet()))))
        #expect(f.service.waits(command(.add(PinsRequest(pins: [pin()])))))
        #expect(f.service.waits(command(.remove(sha256: pin().sha256!, force: true))))
        #expect(!f.service.waits(command(.retire)), "a retirement probes nothing")
    }

    /// A bad host name is refused where the route context normalises it, the same answer on every route that
    /// names one: `GET /pins/{host}` (past the fast path) and a write that may wait alike.
    @Test func aBadHostNameIsOneProblemOnEveryRoute() throws {
        let server = try TestServer(probes: ProbeConfiguration(preflight: .warn))
        defer { server.stop() }
        let get = try server.client.request("GET", "/pins/a..example")
        let retire = try server.client.request(
            "DELETE", "/admin/hosts/a..example", headers: ["Authorization": "Bearer \(server.token)"])
        for response in [get, retire] {
            #expect(response.status == 400)
            let problem = try response.json()
            #expect(problem["type"] as? String == "urn:pinset:problem:invalid-host")
            #expect((problem["detail"] as? String)?.hasPrefix("invalid host \"a..example\"") == true)
        }
    }
}
