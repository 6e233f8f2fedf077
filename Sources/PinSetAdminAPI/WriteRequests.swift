import Foundation
import PinSetCore

/// The body of `PUT /admin/hosts/{host}`: the whole new set.
///
/// Unknown JSON members are refused (400) so that typos (`includeSubDomains`) are caught.
public struct SetRequest: Codable, Sendable, Hashable {
    /// The pins of the new set.
    public var pins: [PinInput]
    /// The set also applies to every name below the host. Default `false`.
    public var includeSubdomains: Bool
    /// `false` = report-only. Default `true`.
    public var enforce: Bool
    /// Where clients report failures; an absolute http(s) URL. `nil` takes the configured default.
    public var reportUri: String?
    /// Publish even when the pre-flight check finds that a live address serves a chain no pin matches (or
    /// the host cannot be probed under `--preflight require`). The history records it. Default `false`.
    public var force = false

    /// Creates a request with the protocol's defaults.
    public init(pins: [PinInput], includeSubdomains: Bool = false, enforce: Bool = true, reportUri: String? = nil) {
        self.pins = pins
        self.includeSubdomains = includeSubdomains
        self.enforce = enforce
        self.reportUri = reportUri
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case pins, includeSubdomains, enforce, reportUri, force }

    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self, in: "the request body")
        pins = try container.decode([PinInput].self, forKey: .pins)
        includeSubdomains = try container.decodeIfPresent(Bool.self, forKey: .includeSubdomains) ?? false
        enforce = try container.decodeIfPresent(Bool.self, forKey: .enforce) ?? true
        reportUri = try container.decodeIfPresent(String.self, forKey: .reportUri)
        force = try container.decodeIfPresent(Bool.self, forKey: .force) ?? false
    }

    /// Decodes a JSON body; a ``RequestBodyError`` (400) whose detail names the offending member otherwise.
    public init(json: [UInt8]) throws(RequestBodyError) {
        self = try StrictKeys.decode(SetRequest.self, from: json)
    }
}

/// The body of `POST /admin/hosts/{host}/pins`: pins to add.
///
/// Unknown JSON members are refused (400).
public struct PinsRequest: Codable, Sendable, Hashable {
    /// The pins to add.
    public var pins: [PinInput]
    /// Publish even when the pre-flight check refuses the result (see ``SetRequest/force``). Default `false`.
    public var force = false

    /// Creates a request.
    public init(pins: [PinInput]) { self.pins = pins }

    private enum CodingKeys: String, CodingKey, CaseIterable { case pins, force }

    public init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, keyedBy: CodingKeys.self, in: "the request body")
        pins = try container.decode([PinInput].self, forKey: .pins)
        force = try container.decodeIfPresent(Bool.self, forKey: .force) ?? false
    }

    /// Decodes a JSON body; a ``RequestBodyError`` (400) whose detail names the offending member otherwise.
    public init(json: [UInt8]) throws(RequestBodyError) {
        self = try StrictKeys.decode(PinsRequest.self, from: json)
    }
}
