import Foundation
import Testing

@testable import PinSetCore

/// Pins and pin sets decode their dates and enums from plain strings (for speed); a bad field must still fail with
/// the error the nested `Decodable` types (`RFC3339Date`, the enums' `RawRepresentable` decoding) gave.
@Suite struct PinDecodingTests {
    /// The decoding as it was, through nested `Decodable` types.
    struct Reference: Decodable {
        enum CodingKeys: String, CodingKey { case issuedAt, pins }
        struct ReferencePin: Decodable {
            let pin: Pin
            init(from decoder: any Decoder) throws {
                enum CodingKeys: String, CodingKey { case sha256, type, role, expiresAt, comment }
                let container = try decoder.container(keyedBy: CodingKeys.self)
                pin = Pin(
                    sha256: try container.decode(String.self, forKey: .sha256),
                    type: try container.decodeIfPresent(PinType.self, forKey: .type) ?? .spki,
                    role: try container.decodeIfPresent(PinRole.self, forKey: .role) ?? .current,
                    expiresAt: try container.decodeIfPresent(RFC3339Date.self, forKey: .expiresAt)?.date,
                    comment: try container.decodeIfPresent(String.self, forKey: .comment))
            }
        }
        let issuedAt: Date
        let pins: [Pin]
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            issuedAt = try container.decode(RFC3339Date.self, forKey: .issuedAt).date
            pins = try container.decode([ReferencePin].self, forKey: .pins).map(\.pin)
        }
    }

    /// The same fields through the new helpers.
    struct Current: Decodable {
        enum CodingKeys: String, CodingKey { case issuedAt, pins }
        let issuedAt: Date
        let pins: [Pin]
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            issuedAt = try container.decodeRFC3339(forKey: .issuedAt)
            pins = try container.decode([Pin].self, forKey: .pins)
        }
    }

    static func outcome<T: Decodable>(_ type: T.Type, _ json: String, _ value: (T) -> String) -> String {
        do { return "ok " + value(try JSONDecoder().decode(T.self, from: Data(json.utf8))) } catch {
            return "error \(error)"
        }
    }

    @Test func sameValuesAndErrorsAsNestedTypes() {
        let dates = [#""2026-11-18T11:06:40Z""#, #""2026-11-18T13:06:40+02:00""#, #""bad""#, "null", "1", "[]", "{}"]
        let types = [#""spki""#, #""certificate""#, #""SPKI""#, "null", "2", #""""#, #"["spki"]"#]
        let roles = [#""current""#, #""backup""#, #""future""#, #""spare""#, "null", "false"]
        var bodies: [String] = []
        for date in dates {
            for type in types {
                for role in roles {
                    bodies.append(
                        #"{"issuedAt":\#(date),"pins":[{"sha256":"x","type":\#(type),"role":\#(role),"expiresAt":\#(date)}]}"#
                    )
                }
            }
        }
        bodies += [
            #"{"pins":[]}"#, #"{"issuedAt":"2026-11-18T11:06:40Z"}"#,
            #"{"issuedAt":"2026-11-18T11:06:40Z","pins":[{}]}"#,
            #"{"issuedAt":"2026-11-18T11:06:40Z","pins":[{"sha256":"x"},{"sha256":"y","role":"nope"}]}"#,
            #"{"issuedAt":"2026-11-18T11:06:40Z","pins":[{"sha256":"x","comment":"c"}]}"#,
        ]
        for body in bodies {
            let reference = Self.outcome(Reference.self, body) { "\($0.issuedAt) \($0.pins)" }
            let current = Self.outcome(Current.self, body) { "\($0.issuedAt) \($0.pins)" }
            #expect(current == reference, "\(body)")
        }
    }
}
