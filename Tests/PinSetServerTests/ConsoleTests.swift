import Foundation
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// The admin console (issue 15): the embedded files match console/, and `/console` serves them from memory
/// with the security headers, ETags and 304s, apart from the `/pins` path.
@Suite(.blocking) struct ConsoleTests {
    static let sourceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../console").standardized

    @Test func embeddedFilesAreCurrent() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sourceDirectory.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(ConsoleAssets.files.map(\.name) == names, "run python3 scripts/embed_console.py")
        for file in ConsoleAssets.files {
            let text = try String(contentsOf: Self.sourceDirectory.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.text == text, "\(file.name) changed since it was embedded: run scripts/embed_console.py")
        }
    }

    @Test func openAPIListsEveryFile() throws {
        let spec = try String(
            contentsOf: Self.sourceDirectory.appendingPathComponent("../openapi.yaml").standardized, encoding: .utf8)
        let names = ConsoleAssets.files.map(\.name).joined(separator: ", ")
        #expect(spec.contains("enum: [\(names)]"), "openapi.yaml's /console/{asset} enum must list: \(names)")
    }

    /// The CSP forbids inline script and style; the console must not need them, nor build HTML from strings.
    @Test func noInlineScriptStyleOrHTMLStrings() {
        for file in ConsoleAssets.files {
            let text = file.text
            if file.name.hasSuffix(".html") {
                #expect(!text.contains("<style"), "\(file.name): inline <style>")
                #expect(!text.contains("style="), "\(file.name): style attribute")
                let handler = text.range(of: #"\son[a-z]+="#, options: .regularExpression)
                #expect(handler == nil, "\(file.name): inline event handler")
                for script in text.components(separatedBy: "<script").dropFirst() {
                    #expect(script.prefix(while: { $0 != ">" }).contains("src="), "\(file.name): inline <script>")
                }
            }
            if file.name.hasSuffix(".js") {
                let sinks = ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"]
                for sink in sinks {
                    #expect(!text.contains(sink), "\(file.name) uses \(sink): insert server data as text only")
                }
            }
        }
    }

    @Test func servesThePageAndAssetsWithSecurityHeaders() throws {
        let server = try TestServer()
        let page = try server.client.request("GET", "/console")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'self'") == true)
        #expect(page.header("X-Frame-Options") == "DENY")
        #expect(page.header("Referrer-Policy") == "no-referrer")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        #expect(page.header("Set-Cookie") == nil)
        #expect(page.text.contains(#"<script type="module" src="/console/app.js">"#))
        let etag = try #require(page.header("ETag"))
        #expect(etag.range(of: #"^"[A-Za-z0-9_-]{24}"$"#, options: .regularExpression) != nil)
        #expect(try server.client.request("GET", "/console/").body == page.body)
        #expect(try server.client.request("GET", "/console/index.html").body == page.body)

        let cached = try server.client.request("GET", "/console", headers: ["If-None-Match": etag])
        #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == etag)
        // Content-Length: libmicrohttpd 0.9.75 says 0 on every 304 (see CachedResource.notModifiedResponse).
        #expect(cached.header("Content-Security-Policy") != nil)

        let script = try server.client.request("GET", "/console/app.js")
        #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script.header("ETag") != etag)
        let style = try server.client.request("GET", "/console/console.css")
        #expect(style.header("Content-Type") == "text/css; charset=utf-8")
        #expect(try server.client.request("GET", "/console/icon.svg").header("Content-Type") == "image/svg+xml")

        let missing = try server.client.request("GET", "/console/missing.js")
        #expect(missing.status == 404 && missing.header("Content-Type") == "application/problem+json")
        let post = try server.client.request("POST", "/console", body: Array("x".utf8))
        #expect(post.status == 405 && post.header("Allow") == "GET")
        // The console needs no token, and the admin API still does.
        #expect(try server.client.request("GET", "/admin/hosts").status == 401)
    }

    @Test func pinsPathIsUntouched() throws {
        let server = try TestServer()
        _ = try server.put("console.example.com", pinPair())
        let document = try server.client.request("GET", "/pins/console.example.com")
        #expect(document.status == 200 && document.header("Content-Type") == "application/json")
        #expect(document.header("Content-Security-Policy") == nil)
        #expect(try server.client.request("GET", "/pins/console").status == 404)
    }

    @Test func reportsAreCountedPerDay() throws {
        let server = try TestServer()
        let served = try ReportsTests.certificate(in: server.directory, name: "served")
        _ = try server.put("example.com", pinPair())
        let body = ReportsTests.trustKitReport(chain: [served.pem], knownPins: [pin(1)])
        for _ in 0..<3 {
            #expect(try server.client.request("POST", "/reports", body: body).status == 204)
        }
        let list = try server.client.request("GET", "/admin/reports?host=example.com", headers: server.auth)
        #expect(list.status == 200, "\(list.text)")
        let days = try #require(try list.json()["days"] as? [[String: Any]])
        let today = String(RFC3339.format(Date()).prefix(10))
        #expect(days.count == 1)
        #expect(days.first?["host"] as? String == "example.com")
        #expect(days.first?["day"] as? String == today)
        #expect(days.first?["count"] as? Int == 3)
        let later = try server.client.request("GET", "/admin/reports?since=2999-01-01T00:00:00Z", headers: server.auth)
        #expect((try later.json()["days"] as? [Any])?.isEmpty == true)
    }

    @Test func dayNumbersBecomeCalendarDays() {
        #expect(ReportTable.dayText(0) == "1970-01-01")
        #expect(ReportTable.dayText(ReportTable.day(951_782_400)) == "2000-02-29")
        #expect(ReportTable.dayText(ReportTable.day(1_795_436_741)) == "2026-11-23")
        #expect(ReportTable.dayText(ReportTable.day(253_402_300_799)) == "9999-12-31")
        #expect(ReportTable.day(-1) == -1)
    }
}
