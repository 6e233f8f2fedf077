import Foundation
import OpenSSLCrypto
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer

/// Issue 40, item 11: a JSON object that repeats a member is one request to the server (first wins) and another to
/// a reviewing proxy in Python or JavaScript (last wins): every JSON the server reads refuses it with 400.
@Suite(.blocking) struct RepeatedMemberTests {
    @Test func adminWritesRefuseRepeatedMembers() throws {
        let server = try TestServer()
        #expect(try server.put("a.example.com", pinPair()).status == 201)
        let twoPins = String(pinPair(5).dropFirst().dropLast())  // "pins":[...]
        for body in [
            #"{"pins":[],\#(twoPins)}"#, #"{\#(twoPins),"\u0070ins":[]}"#,
            #"{\#(twoPins),"enforce":true,"enforce":false}"#,
            #"{"pins":[{"sha256":"\#(pin(7))","role":"current","role":"backup"},{"sha256":"\#(pin(8))","role":"backup"}]}"#,
        ] {
            let answer = try server.put("a.example.com", body)
            #expect(answer.status == 400, "\(body): \(answer.status) \(answer.text)")
            #expect(answer.header("Content-Type") == "application/problem+json")
        }
        let add = try server.client.request(
            "POST", "/admin/hosts/a.example.com/pins", headers: server.auth,
            body: Array(#"{"pins":[],"pins":[{"sha256":"\#(pin(9))"}]}"#.utf8))
        #expect(add.status == 400)
        // Nothing changed; the same member in two objects is fine.
        #expect(
            try server.client.request("GET", "/admin/hosts/a.example.com", headers: server.auth).json()["version"]
                as? Int == 1)
        #expect(try server.put("a.example.com", pinPair(5)).status == 200)
    }

    @Test func reportsRefuseRepeatedMembers() throws {
        let server = try TestServer()
        let served = try ReportsTests.certificate(in: server.directory, name: "served")
        var report = ReportsTests.trustKitReport(chain: [served.pem], knownPins: [pin(1)], host: "www.example.com")
        #expect(try server.client.request("POST", "/reports", body: report).status == 204)
        report.removeLast()  // the closing brace
        report += Array(#","hostname":"other.example.net"}"#.utf8)
        let answer = try server.client.request("POST", "/reports", body: report)
        #expect(answer.status == 400, "\(answer.status) \(answer.text)")
    }

    @Test func trustPushesRefuseRepeatedMembers() throws {
        let root = try Ed25519SigningKey.generate()
        let server = try TestServer(rootKeys: [root.publicKey])
        let serverKey = try Ed25519SigningKey.load(pemFile: server.keyPath).publicKey
        var document = ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root])
        let decoded = try TrustDocument.decode(json: document)
        document.removeLast()
        document += Array(#","payload":"\#(decoded.payload)"}"#.utf8)
        let answer = try server.client.request("PUT", "/admin/trust", headers: server.auth, body: document)
        #expect(answer.status == 400, "\(answer.status) \(answer.text)")
        #expect(try server.client.request("GET", "/trust").status == 404)
    }

    @Test func theScannerComparesDecodedNames() {
        #expect(JSONRepeatedMembers.first(in: Array(#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#.utf8)) == nil)
        #expect(JSONRepeatedMembers.first(in: Array(#"{"a":1,"b":{"x":2,"x":3}}"#.utf8)) == "x")
        #expect(JSONRepeatedMembers.first(in: Array(#"{"\u00e9":1,"é":2}"#.utf8)) == "é")
        #expect(JSONRepeatedMembers.first(in: Array(#"{"\ud83d\ude00":1,"😀":2}"#.utf8)) == "😀")
        // Values are skipped, not decoded: an escaped quote or a colon inside one is not a name.
        #expect(JSONRepeatedMembers.first(in: Array(#"{"a":"x\":\\","b":["a:",":"],"a":1}"#.utf8)) == "a")
        #expect(JSONRepeatedMembers.first(in: Array(#"{"a":"\"a\":1","b":2}"#.utf8)) == nil)
        #expect(JSONRepeatedMembers.first(in: Array(#"{"a":"\"a\":","b":"a"}"#.utf8)) == nil)
        #expect(JSONRepeatedMembers.first(in: Array(#"["a","a"]"#.utf8)) == nil)
    }
}
