import Foundation
import PinSetClient
import Testing

@testable import PinSetNIO

/// PinSetNIO never validates against an empty trust store (issue 18): without explicit roots it needs readable
/// system roots, and says so when there are none.
@Suite struct TrustRootsTests {
    @Test func missingSystemRootsAreAClearError() {
        #expect(throws: TrustRootsError.self) {
            try PinnedTLSConfiguration.systemTrustRoots(bundles: ["/nonexistent/ca-certificates.crt"])
        }
        do {
            _ = try PinnedTLSConfiguration.systemTrustRoots(bundles: ["/nonexistent/ca-certificates.crt"])
        } catch {
            #expect(error.description.contains("trustRoots"))
        }
    }
}
