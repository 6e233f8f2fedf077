import Foundation
import PinSetOpenSSL
import TestSupport
import Testing

/// The `pinset` executable checks documents with the system OpenSSL (PinSetRules over `OpenSSLTrustCrypto`), so it
/// must not link swift-crypto's vendored BoringSSL (issue 22 item 4: it doubled the binary and the first build).
/// `VerifyFetchTests` proves the OpenSSL path accepts and refuses exactly as the client does.
@Suite(.blocking) struct LinkageTests {
    /// Every symbol of swift-crypto's BoringSSL copy carries this prefix.
    static let marker = Data("CCryptoBoringSSL".utf8)

    @Test func pinsetLinksNoBoringSSL() throws {
        let pinset = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.binary))
        #expect(pinset.range(of: Self.marker) == nil)
    }

    /// Control: the marker is found in a binary that does link swift-crypto (the client micro-benchmarks, which
    /// `swift build --build-tests` builds beside `pinset`).
    @Test func theMarkerIsFoundWhereSwiftCryptoIsLinked() throws {
        let bench = URL(fileURLWithPath: CLIRunner.binary).deletingLastPathComponent().appendingPathComponent(
            "PinSetBench")
        let bytes = try Data(contentsOf: bench)
        #expect(bytes.range(of: Self.marker) != nil)
    }
}
