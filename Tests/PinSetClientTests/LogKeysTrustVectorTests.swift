import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// The shared `logKeys` trust cases of Tests/Vectors/log (made by its independent Python generator), which the JVM
/// client runs too: both clients must accept and refuse the same documents.
@Suite(.blocking) struct LogKeysTrustVectorTests {
    struct Manifest: Decodable { let trustCases: [Case] }
    struct Case: Decodable, Sendable {
        let name: String
        let rootKeys: [String]
        let threshold: Int
        let documents: [String]
        let expect: Expect
    }
    struct Expect: Decodable, Sendable {
        var version: Int?
        var logKeys: Int?
        var reject: String?
    }

    @Test func everyTrustCase() throws {
        let root = SharedVectorTests.root
        let manifest = try JSONDecoder().decode(
            Manifest.self, from: Data(contentsOf: root.appendingPathComponent("log/manifest.json")))
        #expect(manifest.trustCases.count == 12)
        for entry in manifest.trustCases {
            let shipped = try TrustState(
                rootKeys: try SharedVectorTests.keys(entry.rootKeys), threshold: entry.threshold)
            let documents = try entry.documents.map { [UInt8](try Data(contentsOf: root.appendingPathComponent($0))) }
            switch TrustDocumentVerifier(maxSteps: 10).walk(documents, from: shipped, now: SharedVectorTests.now) {
            case .success(let state):
                #expect(entry.expect.reject == nil, "\(entry.name)")
                #expect(state.version == entry.expect.version, "\(entry.name)")
                #expect(state.logKeys.count == entry.expect.logKeys, "\(entry.name)")
            case .failure(let rejection):
                #expect(rejection.code.rawValue == entry.expect.reject, "\(entry.name)")
            }
        }
    }
}
