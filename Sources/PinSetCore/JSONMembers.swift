import Foundation

/// Where a document's members go, named once per type (``JSONMembers/writeMembers(to:)``): ``JSONWriter``'s bytes
/// on the signing and answering paths, or an `Encoder`'s keyed container for `Encodable`. One list of members
/// serves both, so the two encodings cannot drift apart.
public protocol JSONMemberSink {
    /// What writing a member can throw: `Never` for ``JSONWriter``, any error for an `Encoder`.
    associatedtype Failure: Error
    /// Writes a string member.
    mutating func member(_ name: StaticString, _ value: String) throws(Failure)
    /// Writes an integer member.
    mutating func member(_ name: StaticString, _ value: Int) throws(Failure)
    /// Writes a boolean member.
    mutating func member(_ name: StaticString, _ value: Bool) throws(Failure)
    /// Writes a date member as an RFC 3339 string with seconds precision (``RFC3339/format(_:)``).
    mutating func member(_ name: StaticString, _ value: Date) throws(Failure)
    /// Writes an array of pins, each an object of its own members (``Pin/writeMembers(to:)``).
    mutating func member(_ name: StaticString, _ value: [Pin]) throws(Failure)
}

/// A type whose JSON is one object of members, listed once in ``writeMembers(to:)``.
///
/// Its `Encodable` conformance (``encodeMembers(to:)``) and its bytes (``JSONWriter/members(of:)``) both come from
/// that list: `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` and the writer give the same bytes.
public protocol JSONMembers: Encodable {
    /// Writes every member, **in sorted (byte) order of the names** (``JSONWriter`` writes them as they come);
    /// an optional member that is `nil` is left out.
    func writeMembers<Sink: JSONMemberSink>(to sink: inout Sink) throws(Sink.Failure)
}

extension JSONMembers {
    /// `encode(to:)` through ``writeMembers(to:)``: what the conforming types' `Encodable` calls.
    public func encodeMembers(to encoder: any Encoder) throws {
        var sink = EncoderMemberSink(encoder)
        try writeMembers(to: &sink)
    }
}

extension JSONWriter: JSONMemberSink {
    /// The writer cannot fail.
    public typealias Failure = Never

    /// Writes `"name":"value"`.
    public mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes `"name":value`.
    public mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    /// Writes `"name":true` or `"name":false`.
    public mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes `"name":"<RFC 3339>"`.
    public mutating func member(_ name: StaticString, _ value: Date) {
        key(name)
        date(value)
    }

    /// Writes `"name":[{…},…]`, each pin through ``Pin/writeMembers(to:)``.
    public mutating func member(_ name: StaticString, _ value: [Pin]) {
        key(name)
        array(value) { json, pin in json.members(of: pin) }
    }

    /// Writes `value` as one object of its members.
    public mutating func members(of value: some JSONMembers) {
        object { json in value.writeMembers(to: &json) }
    }
}

/// The `Encodable` side of ``JSONMemberSink``: each member into the encoder's keyed container; dates as
/// ``RFC3339Date`` whatever the encoder's date strategy.
struct EncoderMemberSink: JSONMemberSink {
    typealias Failure = any Error

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: StaticString) { stringValue = name.description }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private var container: KeyedEncodingContainer<Key>

    init(_ encoder: any Encoder) { container = encoder.container(keyedBy: Key.self) }

    mutating func member(_ name: StaticString, _ value: String) throws {
        try container.encode(value, forKey: Key(name))
    }
    mutating func member(_ name: StaticString, _ value: Int) throws { try container.encode(value, forKey: Key(name)) }
    mutating func member(_ name: StaticString, _ value: Bool) throws { try container.encode(value, forKey: Key(name)) }
    mutating func member(_ name: StaticString, _ value: Date) throws {
        try container.encode(RFC3339Date(value), forKey: Key(name))
    }
    mutating func member(_ name: StaticString, _ value: [Pin]) throws { try container.encode(value, forKey: Key(name)) }
}
