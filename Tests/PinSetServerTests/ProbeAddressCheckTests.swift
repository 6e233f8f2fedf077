import Foundation
import PinSetCore
import PinSetProbe
import TestSupport
import Testing

/// Issue 40, items 6 and 12: the address check applies to every probe but the address a mapping names; the
/// IPv6 ranges that embed an IPv4 address or reach an internal network are refused; hex and numeric spellings of
/// IPv4 addresses are no host names.
@Suite(.blocking) struct ProbeAddressCheckTests {
    /// Finding 6: `--connect-to ":443::18443"` (a port only) turned the check off for every host; the server then
    /// hand-shook with any address a name or literal gave it.
    @Test func aMappingThatOnlyChangesThePortKeepsTheCheck() throws {
        let host = try TLSTestHost()
        let portOnly = try #require(ConnectToRule(":443::\(host.port)"))
        let prober = HostProber(
            configuration: ProbeConfiguration(connectTo: [portOnly], timeout: 5), unanswered: UnansweredAddresses())
        let results = prober.probe(host.ip)
        #expect(results.count == 1)
        #expect(results.first?.served.isEmpty == true, "the loopback address was probed: \(results)")
        #expect(results.first?.error?.hasPrefix("refused: \(host.ip) is a loopback address") == true, "\(results)")
        // A mapping that names the destination still reaches it (tests and staging rely on that).
        let named = try #require(ConnectToRule(host.mapping))
        let allowed = HostProber(
            configuration: ProbeConfiguration(connectTo: [named], timeout: 5), unanswered: UnansweredAddresses()
        ).probe(host.name)
        #expect(allowed.first?.served.isEmpty == false, "\(allowed)")
    }

    /// Finding 12: `::/96`, `64:ff9b::/96`, `2002::/16` and `fec0::/10` were public to the check.
    @Test func theMissingIPv6RangesAreRefused() {
        func v6(_ prefix: [UInt8]) -> [UInt8] {
            prefix + [UInt8](repeating: 0, count: 16 - prefix.count - 4) + [169, 254, 169, 254]
        }
        #expect(AddressPolicy.restriction(v6([])) != nil)  // ::169.254.169.254
        #expect(AddressPolicy.restriction(v6([0x00, 0x64, 0xff, 0x9b])) != nil)  // 64:ff9b::169.254.169.254
        #expect(AddressPolicy.restriction(v6([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) != nil)  // 64:ff9b:1::/48
        #expect(AddressPolicy.restriction(v6([0x20, 0x02, 0xa9, 0xfe, 0xa9, 0xfe])) != nil)  // 2002:a9fe:a9fe::
        #expect(AddressPolicy.restriction(v6([0xfe, 0xc0])) != nil)  // fec0::
        // Public IPv6 stays probeable.
        #expect(AddressPolicy.restriction([0x26, 0x06, 0x47, 0x00] + [UInt8](repeating: 1, count: 12)) == nil)
        #expect(AddressPolicy.restriction([0x20, 0x01, 0x0d, 0xb9] + [UInt8](repeating: 1, count: 12)) == nil)
    }

    /// Finding 12: `0xa9fea9fe` was a host name; resolvers read it as 169.254.169.254.
    @Test func numericSpellingsOfIPv4AreNoHostNames() throws {
        for spelling in ["0xa9fea9fe", "0XA9FEA9FE", "a.0x7f", "1.2.3.4", "example.0x", "a.017"] {
            #expect(throws: HostName.Error.self, "\(spelling)") { try HostName.normalize(spelling) }
        }
        for name in ["0xa9fea9fe.example.com", "a.b0x1", "1a.example", "x0.example"] {
            #expect((try? HostName.normalize(name)) != nil, "\(name)")
        }
    }
}
