import Foundation
import PinSetServer
import TestSupport
import Testing

/// `GET /readyz` (issue 37 item 2): a list of named conditions apart from `/healthz`, on a real in-process server.
@Suite(.blocking) struct ReadinessTests {
    @Test func readyListsItsConditionsAndDrainingTurnsIt503WhileEverythingElseAnswers() throws {
        let server = try TestServer()
        let app = try #require(server.app)
        #expect(try server.put("api.example.com", pinPair()).status == 201)
        let ready = try server.client.request("GET", "/readyz")
        #expect(ready.status == 200)
        let conditions = #"{"status":"ready","conditions":["index","signer","storage","integrity","draining"]}"#
        #expect(ready.text == conditions, "\(ready.text)")
        #expect(ready.header("Cache-Control") == "no-store")
        #expect(app.readiness.notReady().isEmpty && !app.readiness.isDraining)

        app.startDraining()
        let draining = try server.client.request("GET", "/readyz")
        #expect(draining.status == 503)
        #expect(draining.header("Content-Type") == "application/problem+json")
        let problem = try draining.json()
        #expect(problem["type"] as? String == "urn:pinset:problem:not-ready")
        #expect(problem["title"] as? String == "Not ready" && problem["status"] as? Int == 503)
        let notReady = try #require(problem["notReady"] as? [[String: String]])
        #expect(notReady.map { $0["name"] } == ["draining"])
        #expect(notReady.first?["detail"]?.contains("SIGTERM") == true)
        // Liveness and every other route still answer while draining.
        #expect(try server.client.request("GET", "/healthz").status == 200)
        #expect(try server.client.request("GET", "/pins/api.example.com").status == 200)
        #expect(try server.put("other.example.com", pinPair()).status == 201)
        // HEAD and POST are not routes of /readyz.
        #expect(try server.client.request("POST", "/readyz").status == 405)
    }

    /// Another subsystem adds its own condition (as issue 41's storage faults do, `storage`): `/readyz` names it, in
    /// order, with its reason, and is ready again once it holds.
    @Test func aConditionAddedByAnotherSubsystemIsCheckedAndNamed() throws {
        let server = try TestServer()
        let app = try #require(server.app)
        let failing = FailingFlag()
        app.readiness.add("backups") { failing.reason }
        #expect(app.readiness.names == ["index", "signer", "storage", "integrity", "backups", "draining"])
        #expect(try server.client.request("GET", "/readyz").status == 200)

        failing.reason = "the backup folder is full"
        let answer = try server.client.request("GET", "/readyz")
        #expect(answer.status == 503)
        let problem = try answer.json()
        #expect((problem["detail"] as? String) == "not ready: backups (the backup folder is full)")
        let named = problem["notReady"] as? [[String: String]]
        #expect(named == [["name": "backups", "detail": "the backup folder is full"]])
        app.startDraining()
        #expect(app.readiness.notReady().map(\.name) == ["backups", "draining"])

        failing.reason = nil
        #expect(app.readiness.notReady().map(\.name) == ["draining"])
    }
}

/// A condition's state, set by the test.
private final class FailingFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?

    var reason: String? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
