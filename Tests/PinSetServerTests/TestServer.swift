import Foundation
import MicroHTTPD
import PinSetCore
import PinSetProbe
import TestSupport
import Testing

@testable import PinSetServer

/// A real pin server for tests: a real SQLite file and a real OpenSSL-made key in a temporary folder, a real
/// libmicrohttpd listener on an ephemeral loopback port.
final class TestServer: @unchecked Sendable {
    let directory: URL
    var configuration: PinSetServerConfiguration
    private(set) var app: PinSetServerApp?
    private(set) var token = ""

    var client: TestHTTPClient { TestHTTPClient(port: app!.port) }
    var keyPath: String { configuration.keyPath }

    init(
        lifetime: TimeInterval = 14 * 86_400, resignAfter: TimeInterval? = nil, resignCheck: TimeInterval = 60,
        reports: ReportConfiguration = ReportConfiguration(), rootKeys: [[UInt8]] = [], rootThreshold: Int = 1,
        probes: ProbeConfiguration = ProbeConfiguration()
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = directory.appendingPathComponent("key.pem").path
        try run("openssl", "genpkey", "-algorithm", "ed25519", "-out", keyPath)
        try run("chmod", "600", keyPath)
        var service = ServiceConfiguration()
        service.documentLifetime = lifetime
        service.resignAfter = resignAfter
        service.probes = probes
        var http = HTTPServerConfiguration()
        http.port = 0
        configuration = PinSetServerConfiguration(
            databasePath: directory.appendingPathComponent("pinset.sqlite").path, keyPath: keyPath, http: http,
            service: service, reports: reports, resignCheckInterval: resignCheck, rootKeys: rootKeys,
            rootThreshold: rootThreshold)
        try start()
        token = try app!.service.createToken(name: "tester")
    }

    func start() throws {
        app = try PinSetServerApp(configuration: configuration)
    }

    func stop() {
        app?.shutdown(gracePeriod: 2)
        app = nil
    }

    deinit {
        app?.shutdown(gracePeriod: 1)
        try? FileManager.default.removeItem(at: directory)
    }

    var auth: [String: String] { ["Authorization": "Bearer \(token)"] }

    func put(_ host: String, _ json: String, headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        try client.request("PUT", "/admin/hosts/\(host)", headers: auth.merging(headers) { $1 }, body: Array(json.utf8))
    }

    /// Writes the public key PEM next to the private key and returns its path.
    func publicKeyPath() throws -> String {
        let path = directory.appendingPathComponent("pub.pem").path
        try run("openssl", "pkey", "-in", keyPath, "-pubout", "-out", path)
        return path
    }
}

/// Runs a command, returning its standard output; throws when it exits non-zero.
@discardableResult
func run(_ arguments: String..., input: [UInt8]? = nil) throws -> String {
    try runArgs(arguments, input: input)
}

@discardableResult
func runArgs(_ arguments: [String], input: [UInt8]? = nil) throws -> String {
    String(
        decoding: try ProcessRunner.checked(arguments[0], Array(arguments.dropFirst()), stdin: input.map { Data($0) }),
        as: UTF8.self)
}

/// Two valid distinct pins, the second a backup: the smallest enforcing set.
func pinPair(_ seed: UInt8 = 1) -> String {
    let a = Base64.encode([UInt8](repeating: seed, count: 32))
    let b = Base64.encode([UInt8](repeating: seed &+ 100, count: 32))
    return #"{"pins":[{"sha256":"\#(a)"},{"sha256":"\#(b)","role":"backup"}]}"#
}

func pin(_ seed: UInt8) -> String { Base64.encode([UInt8](repeating: seed, count: 32)) }
