import Foundation
import PinSetCore

/// A request body the admin API refuses (`400`): not JSON, a member missing or of the wrong type, or an unknown
/// member. ``detail`` says where and why.
public struct RequestBodyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What to fix, naming the member.
    public let detail: String

    /// Creates an error.
    public init(_ detail: String) { self.detail = detail }

    public var description: String { detail }
}

/// Decoding helpers for request bodies: refuse unknown members and turn decoding errors into readable 400s.
enum StrictKeys {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws a `DecodingError` naming the first member of the object that is not in `allowed`.
    static func check(_ decoder: any Decoder, allowed: [String], in what: String) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath + [key],
                    debugDescription:
                        "unknown member \"\(key.stringValue.prefix(40))\" in \(what); allowed: \(allowed.joined(separator: ", "))"
                ))
        }
    }

    /// The keyed container of `decoder`'s object, once ``check(_:allowed:in:)`` has found no member outside `Key`'s
    /// cases.
    static func container<Key: CodingKey & CaseIterable>(
        _ decoder: any Decoder, keyedBy: Key.Type, in what: String
    ) throws -> KeyedDecodingContainer<Key> {
        try check(decoder, allowed: Key.allCases.map(\.stringValue), in: what)
        return try decoder.container(keyedBy: Key.self)
    }

    /// Decodes `type` from JSON bytes with ``AdminJSON/decoder``, mapping every failure to a
    /// ``RequestBodyError`` that says where and why.
    static func decode<T: Decodable>(_ type: T.Type, from json: [UInt8]) throws(RequestBodyError) -> T {
        if let name = JSONRepeatedMembers.first(in: json) {
            throw RequestBodyError(
                "the member \"\(name.prefix(40))\" appears twice in one object; send each member once")
        }
        do {
            return try AdminJSON.decoder.decode(T.self, from: Data(json))
        } catch let error as DecodingError {
            throw RequestBodyError(describe(error))
        } catch {
            throw RequestBodyError("the request body is not valid JSON")
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the body" : String(text.drop { $0 == "." })
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "the body" : path(context.codingPath)
            return "\(parent) is missing the required member \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type (expected \(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null (expected \(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the request body is not valid JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "the request body could not be decoded"
        }
    }
}
