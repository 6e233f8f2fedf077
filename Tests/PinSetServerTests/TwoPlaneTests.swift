import Foundation
import MicroHTTPD
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 40, item 5: with an admin listener, `/admin`, `/console` and `/metrics` are served there only, and the public
/// listener serves the public routes only; without one, one listener serves both (as before).
@Suite(.blocking) struct TwoPlaneTests {
    @Test func theAdminAPIIsOnItsOwnListener() throws {
        let server = try TestServer()
        #expect(try server.put("a.example.com", pinPair()).status == 201)
        server.stop()
        var admin = HTTPServerConfiguration()
        admin.port = 0
        server.configuration.adminHTTP = admin
        try server.start()
        let adminPort = try #require(server.app!.adminPort)
        #expect(adminPort != server.app!.port)
        let publicPlane = server.client
        let adminPlane = TestHTTPClient(port: adminPort)

        // Public: documents, keys, health and reports; nothing of the admin plane, not even a 401.
        #expect(try publicPlane.request("GET", "/pins/a.example.com").status == 200)
        #expect(try publicPlane.request("GET", "/keys").status == 200)
        #expect(try publicPlane.request("GET", "/healthz").status == 200)
        for (method, path) in [
            ("GET", "/admin/hosts"), ("PUT", "/admin/hosts/b.example.com"), ("GET", "/admin"), ("GET", "/metrics"),
            ("GET", "/console"), ("GET", "/console/app.js"),
        ] {
            let answer = try publicPlane.request(method, path, headers: server.auth, body: Array(pinPair().utf8))
            #expect(answer.status == 404, "public \(method) \(path): \(answer.status)")
            #expect(answer.header("Content-Type") == "application/problem+json")
        }
        #expect(try publicPlane.request("GET", "/admin/hosts").status == 404)

        // Admin: the API, the console and the metrics; no documents, no reports.
        #expect(try adminPlane.request("GET", "/admin/hosts", headers: server.auth).status == 200)
        #expect(try adminPlane.request("GET", "/admin/hosts").status == 401)
        let write = try adminPlane.request(
            "PUT", "/admin/hosts/b.example.com", headers: server.auth, body: Array(pinPair(3).utf8))
        #expect(write.status == 201)
        #expect(try publicPlane.request("GET", "/pins/b.example.com").status == 200)
        #expect(try adminPlane.request("GET", "/metrics").status == 200)
        #expect(try adminPlane.request("GET", "/console").status == 200)
        for (method, path) in [
            ("GET", "/pins/a.example.com"), ("POST", "/reports"), ("GET", "/keys"), ("GET", "/trust"),
        ] {
            #expect(
                try adminPlane.request(method, path, body: [UInt8]("{}".utf8)).status == 404, "admin \(method) \(path)")
        }
    }

    @Test func withoutAnAdminListenerOneListenerServesBoth() throws {
        let server = try TestServer()
        #expect(server.app!.adminPort == nil)
        #expect(try server.put("a.example.com", pinPair()).status == 201)
        #expect(try server.client.request("GET", "/admin/hosts", headers: server.auth).status == 200)
        #expect(try server.client.request("GET", "/pins/a.example.com").status == 200)
        #expect(try server.client.request("GET", "/metrics").status == 200)
        #expect(try server.client.request("GET", "/console").status == 200)
    }

    @Test func theAdminListenerIsLoopbackByDefault() {
        #expect(HTTPServerConfiguration().bindAddress == "127.0.0.1")
        #expect(PinSetServerConfiguration().adminHTTP == nil)
    }
}
