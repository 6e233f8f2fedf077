import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// The shared acceptance vectors of Tests/Vectors (issue 23) through the Swift client. The JVM client runs the very
/// same manifest (clients/jvm's VectorTest), so both clients reach the same decision on every case.
@Suite struct SharedVectorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    struct Manifest: Decodable {
        let now: String
        let keys: [String: String]
        let cases: [Case]
    }

    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let name: String
        let kind: String
        let expect: Expect
        var host: String?
        var trustedKeys: [String]?
        var document: String?
        var lastAccepted: Last?
        var trust: Trust?
        var rootKeys: [String]?
        var threshold: Int?
        var documents: [String]?
        var maxSteps: Int?
        var inForce: [String]?
        var served: [String: String]?
        var expectSets: [String]?
        var options: Options?
        var chain: [String]?

        var testDescription: String { name }
    }

    struct Expect: Decodable, Sendable {
        var accept: Bool?
        var version: Int?
        var reject: String?
        var decision: String?
        var allowed: Bool?
        var notedHost: String?
    }

    struct Last: Decodable, Sendable {
        let version: Int
        let issuedAt: String
    }

    struct Trust: Decodable, Sendable {
        let rootKeys: [String]
        let threshold: Int
        let chain: [String]
    }

    struct Options: Decodable, Sendable {
        var denyUnpinnedHosts: Bool?
        var allowMissingSets: Bool?
        var stopPinningStaleSets: Bool?
    }

    static let manifest: Manifest = {
        let data = try! Data(contentsOf: root.appendingPathComponent("manifest.json"))
        return try! JSONDecoder().decode(Manifest.self, from: data)
    }()

    static var now: Date { RFC3339.parse(manifest.now)! }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func keys(_ names: [String]) throws -> [TrustedKey] {
        try names.map { try TrustedKey(rawRepresentation: Base64URL.decode(manifest.keys[$0]!)!) }
    }

    static func trustStore(rootKeys: [String], threshold: Int, chain: [String]) throws -> TrustStore {
        let store = try TrustStore(rootKeys: try keys(rootKeys), threshold: threshold)
        for path in chain {
            let next = try TrustDocumentVerifier().verifyNext(try read(path), after: store.current).get()
            store.advance(to: next)
        }
        return store
    }

    @Test(.blocking) func manifestListsEveryKind() {
        #expect(Self.manifest.cases.count >= 80)
        #expect(
            Set(Self.manifest.cases.map(\.kind)) == [
                "document", "trustWalk", "trustUpdate", "trustBundled", "evaluate",
            ])
    }

    @Test(arguments: manifest.cases)
    func vector(_ entry: Case) async throws {
        let outcome: String
        switch entry.kind {
        case "document": outcome = try document(entry)
        case "trustWalk": outcome = try trustWalk(entry)
        case "trustUpdate": outcome = try await trustUpdate(entry)
        case "evaluate": outcome = try evaluate(entry)
        case "trustBundled": outcome = try trustBundled(entry)
        default: Issue.record("unknown kind \(entry.kind)"); return
        }
        #expect(outcome == expected(entry), "\(entry.name)")
    }

    func expected(_ entry: Case) -> String {
        let expect = entry.expect
        if entry.kind == "evaluate" {
            return "\(expect.decision!) allowed=\(expect.allowed!)" + (expect.notedHost.map { " noted=\($0)" } ?? "")
        }
        if let code = expect.reject { return "reject \(code)" + (expect.version.map { " version=\($0)" } ?? "") }
        return "accept version=\(expect.version!)"
    }

    func document(_ entry: Case) throws -> String {
        let store = try entry.trust.map {
            try Self.trustStore(rootKeys: $0.rootKeys, threshold: $0.threshold, chain: $0.chain)
        }
        let trusted = try Self.keys(entry.trustedKeys ?? [])
        let verifier =
            store.map { DocumentVerifier(trustedKeys: trusted, trustStore: $0) }
            ?? DocumentVerifier(trustedKeys: trusted)
        let last = entry.lastAccepted.map {
            AcceptedVersion(version: $0.version, issuedAt: RFC3339.parse($0.issuedAt)!)
        }
        switch verifier.verify(try Self.read(entry.document!), host: entry.host!, now: Self.now, lastAccepted: last) {
        case .success(let document): return "accept version=\(document.pinSet.version)"
        case .failure(let rejection): return "reject \(rejection.code.rawValue)"
        }
    }

    func trustWalk(_ entry: Case) throws -> String {
        let shipped = try TrustState(rootKeys: try Self.keys(entry.rootKeys!), threshold: entry.threshold!)
        let verifier = TrustDocumentVerifier(maxSteps: entry.maxSteps ?? TrustDocument.maxWalkSteps)
        switch verifier.walk(try entry.documents!.map(Self.read), from: shipped, now: Self.now) {
        case .success(let state): return "accept version=\(state.version)"
        case .failure(let rejection): return "reject \(rejection.code.rawValue)"
        }
    }

    func trustBundled(_ entry: Case) throws -> String {
        do {
            return "accept version=\(try TrustState(bundledDocument: try Self.read(entry.document!)).version)"
        } catch let rejection as TrustRejection {
            return "reject \(rejection.code.rawValue)"
        }
    }

    /// The updater's own trust refresh, against the files served by path.
    func trustUpdate(_ entry: Case) async throws -> String {
        let store = try Self.trustStore(rootKeys: entry.rootKeys!, threshold: entry.threshold!, chain: entry.inForce!)
        let server = PathServer()
        for (path, file) in entry.served! { server.serve(path, try Self.read(file)) }
        let now = Self.now
        let updater = PinSetUpdater(
            configuration: .init(server: URL(string: "http://pins.test")!, hosts: []),
            trustManager: PinTrustManager(trustStore: store), transport: server, clock: { now })
        await updater.refreshTrust()
        let rejections = await updater.stopAndCollect().trustRejections
        let version = store.current.version
        if let first = rejections.first { return "reject \(first.rawValue) version=\(version)" }
        return "accept version=\(version)"
    }

    func evaluate(_ entry: Case) throws -> String {
        let options = PinningOptions(
            unpinnedHosts: entry.options?.denyUnpinnedHosts == true ? .deny : .allow,
            missingSets: entry.options?.allowMissingSets == true ? .allow : .refuse,
            staleSetPolicy: entry.options?.stopPinningStaleSets == true ? .stopPinning : .keepEnforcing)
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: try Self.keys(["S1"])), options: options)
        manager.expectSets(for: entry.expectSets ?? [])
        for path in entry.documents! {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let host = String(name.dropFirst("set-".count).dropLast(".json".count))
            _ = try manager.installTrusted(document: try Self.read(path), for: host).get()
        }
        let decision = manager.evaluate(chain: try entry.chain!.map(Self.read), host: entry.host!, now: Self.now)
        let name: String
        var noted: String?
        switch decision {
        case .trusted(_, let host): (name, noted) = ("trusted", host)
        case .hostNotPinned: name = "hostNotPinned"
        case .setMissing: name = "setMissing"
        case .pinMismatch(let failure): (name, noted) = ("pinMismatch", failure.notedHost)
        case .reportOnlyMismatch(let failure): (name, noted) = ("reportOnlyMismatch", failure.notedHost)
        }
        let shown = entry.expect.notedHost == nil ? "" : " noted=\(noted ?? "nil")"
        return "\(name) allowed=\(decision.allowsConnection)" + shown
    }
}
