import Foundation
import PinSetAdminAPI
import Testing

/// `HostStatus` and `AddressProbe` encode with Swift's synthesized `encode(to:)` (issue 36 removed the hand-written
/// copies): a `nil` member is left out, the arrays are always written, and what is written decodes back.
@Suite struct StatusJSONTests {
    @Test func nilMembersAreLeftOutAndArraysAlwaysWritten() throws {
        let status = HostStatus(host: "a.example", state: .unknown, addresses: [AddressProbe(address: "192.0.2.1:443")])
        let json = String(decoding: try AdminJSON.encoder.encode(status), as: UTF8.self)
        #expect(
            json
                == #"{"addresses":[{"address":"192.0.2.1:443","served":[]}],"host":"a.example","state":"unknown","warnings":[]}"#
        )
        #expect(try AdminJSON.decoder.decode(HostStatus.self, from: Data(json.utf8)) == status)
    }

    @Test func everyMemberRoundTrips() throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let status = HostStatus(
            host: "a.example", state: .warning, checkedAt: at, pinsMatch: true, leafNotAfter: at,
            warnings: [.certificateExpiresSoon],
            addresses: [AddressProbe(address: "[2001:db8::1]:443", leafNotAfter: at, error: "timeout", matches: false)])
        let json = try AdminJSON.encoder.encode(status)
        #expect(try AdminJSON.decoder.decode(HostStatus.self, from: json) == status)
        let text = String(decoding: json, as: UTF8.self)
        for member in ["checkedAt", "pinsMatch", "leafNotAfter", "error", "matches"] {
            #expect(text.contains("\"\(member)\":"), "\(member) in \(text)")
        }
    }
}
