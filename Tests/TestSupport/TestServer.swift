import Foundation
import MicroHTTPD
import PinSetClient
import PinSetProbe
import PinSetServer

/// The test targets' one in-process pin server: a real SQLite file and a real OpenSSL-made Ed25519 key in a
/// temporary folder (or the given ones), a real libmicrohttpd listener on an ephemeral loopback port, an admin token.
public final class TestServer: @unchecked Sendable {
    /// The temporary folder (removed with the server).
    public let directory: URL
    /// The configuration ``start()`` uses; change it between ``stop()`` and ``start()``.
    package var configuration: PinSetServerConfiguration
    /// The running server, nil after ``stop()``.
    package private(set) var app: PinSetServerApp?
    /// A full-scope admin token.
    public private(set) var token = ""

    /// The one test HTTP client, for this server's port.
    public var client: TestHTTPClient { TestHTTPClient(port: app!.port) }
    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(app!.port)")! }
    /// The signing key's PEM file.
    public var keyPath: String { configuration.keyPath }
    /// The bearer header of ``token``.
    public var auth: [String: String] { ["Authorization": "Bearer \(token)"] }

    /// Starts a server.
    /// - Parameters:
    ///   - database: the SQLite file; default `pinset.sqlite` in ``directory``.
    ///   - key: the signing key's PEM file; default a new `key.pem` in ``directory``.
    ///   - tokenName: the name of ``token`` (names are unique in a database: give another one to start a second
    ///     server on the same `database`).
    ///   - refreshInterval: the documents' `max-age`; default the service's.
    ///   - The others set the configuration field of the same name (defaults: the server's, `resignCheck` 60 s).
    package init(
        database: String? = nil, key: String? = nil, tokenName: String = "tester", lifetime: TimeInterval = 14 * 86_400,
        refreshInterval: TimeInterval? = nil, resignAfter: TimeInterval? = nil, resignCheck: TimeInterval = 60,
        reports: ReportConfiguration = ReportConfiguration(), rootKeys: [[UInt8]] = [], rootThreshold: Int = 1,
        probes: ProbeConfiguration = ProbeConfiguration()
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = key ?? directory.appendingPathComponent("key.pem").path
        if key == nil {
            try ProcessRunner.text("openssl", "genpkey", "-algorithm", "ed25519", "-out", keyPath)
            try ProcessRunner.text("chmod", "600", keyPath)
        }
        var service = ServiceConfiguration()
        service.documentLifetime = lifetime
        if let refreshInterval { service.refreshInterval = refreshInterval }
        service.resignAfter = resignAfter
        service.probes = probes
        var http = HTTPServerConfiguration()
        http.port = 0
        configuration = PinSetServerConfiguration(
            databasePath: database ?? directory.appendingPathComponent("pinset.sqlite").path, keyPath: keyPath,
            http: http, service: service, reports: reports, resignCheckInterval: resignCheck, rootKeys: rootKeys,
            rootThreshold: rootThreshold)
        try start()
        token = try app!.service.createToken(name: tokenName)
    }

    /// Starts the server with ``configuration``.
    public func start() throws {
        app = try PinSetServerApp(configuration: configuration)
    }

    /// Stops the server (a grace period of 2 s).
    public func stop() {
        app?.shutdown(gracePeriod: 2)
        app = nil
    }

    deinit {
        app?.shutdown(gracePeriod: 1)
        try? FileManager.default.removeItem(at: directory)
    }

    /// `PUT /admin/hosts/{host}` with ``token`` and the JSON body `json`.
    public func put(_ host: String, _ json: String, headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        try client.request("PUT", "/admin/hosts/\(host)", headers: auth.merging(headers) { $1 }, body: Array(json.utf8))
    }

    /// `PUT /admin/hosts/{host}` of `pins` (role by role) with ``token``; the HTTP status.
    public func putSet(_ host: String, pins: [(String, String)], reportUri: String? = nil) throws -> Int {
        let list = pins.map { #"{"sha256":"\#($0.0)","role":"\#($0.1)"}"# }.joined(separator: ",")
        let report = reportUri.map { #","reportUri":"\#($0)""# } ?? ""
        return try put(host, #"{"pins":[\#(list)]\#(report)}"#).status
    }

    /// Writes the public key PEM next to the private key and returns its path.
    public func publicKeyPath() throws -> String {
        let path = directory.appendingPathComponent("pub.pem").path
        try ProcessRunner.text("openssl", "pkey", "-in", keyPath, "-pubout", "-out", path)
        return path
    }

    /// The server's signing public key, read with the openssl CLI (as an app would ship it).
    public func trustedKey() throws -> TrustedKey {
        try TrustedKey(spkiPEM: try ProcessRunner.text("openssl", "pkey", "-in", keyPath, "-pubout"))
    }
}
