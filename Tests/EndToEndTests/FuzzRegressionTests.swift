import Foundation
import PinSetFuzzing
import Testing

/// Every input the parser fuzzers (`make fuzz-quick`, `make fuzz`) ever flagged is kept in FuzzRegressions/ and
/// replayed here through the same harness: none may crash or break a property again. The seeds run too.
@Suite struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("FuzzRegressions")

    @Test func savedFuzzFindingsStayFixed() throws {
        let harness = FuzzHarness()
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
            !$0.hasPrefix(".") && $0 != "README.md"
        }
        for name in names.sorted() {
            let input = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name)))
            #expect(throws: Never.self, "\(name)") { try harness.run(input) }
        }
    }

    @Test func seedsPassAndGenuineDocumentsAreAccepted() throws {
        let harness = FuzzHarness()
        for seed in harness.seeds() { try harness.run(seed) }
        #expect(harness.outcomes["accepted", default: 0] >= 2)
    }
}
