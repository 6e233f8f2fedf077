import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// A controllable clock.
final class TestClock: Sendable {
    private let value: Locked<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { value = Locked(start) }
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var function: @Sendable () -> Date { { self.now } }
}

/// Records every published document, in order.
final class PublishLog: Sendable {
    private let documents = Locked([PublishedDocument]())
    var all: [PublishedDocument] { documents.withLock { $0 } }
    var function: @Sendable (PublishedDocument) -> Void {
        { document in self.documents.withLock { $0.append(document) } }
    }
}

/// A real SQLite file in a temp directory, a real key made by the openssl CLI, a service over them.
final class ServiceFixture {
    let directory: URL
    let clock = TestClock()
    let published = PublishLog()
    var store: PinDatabase
    var key: Ed25519SigningKey
    var service: PinSetService
    var configuration: ServiceConfiguration

    var databasePath: String { directory.appendingPathComponent("db/pinset.sqlite").path }

    init(configuration: ServiceConfiguration = ServiceConfiguration()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.configuration = configuration
        key = try Self.makeKey(named: "key", in: directory)
        store = try PinDatabase(path: directory.appendingPathComponent("db/pinset.sqlite").path)
        service = try PinSetService(
            store: store, signingKey: key, configuration: configuration, clock: clock.function,
            publish: published.function)
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Closes the store and opens everything again from the same file, optionally with another key.
    func reopen(with newKey: Ed25519SigningKey? = nil) throws {
        try store.close()
        if let newKey { key = newKey }
        store = try PinDatabase(path: databasePath)
        service = try PinSetService(
            store: store, signingKey: key, configuration: configuration, clock: clock.function,
            publish: published.function)
    }

    /// `openssl genpkey -algorithm ed25519` into `<name>.pem` (mode 0600) and `<name>.pub.pem`, loaded.
    static func makeKey(named name: String, in directory: URL) throws -> Ed25519SigningKey {
        try sh(
            "openssl genpkey -algorithm ed25519 -out \(name).pem && chmod 600 \(name).pem && openssl pkey -in \(name).pem -pubout -out \(name).pub.pem",
            in: directory)
        return try Ed25519SigningKey.load(pemFile: directory.appendingPathComponent("\(name).pem").path)
    }

    /// An enforcing-valid set: one current pin and one backup pin.
    static func validSet(reportUri: String? = nil) -> SetRequest {
        SetRequest(pins: [pin(), pin(.backup)], reportUri: reportUri)
    }
}

/// A pin input with a fresh random hash.
func pin(_ role: PinRole = .current, expiresAt: Date? = nil, comment: String? = nil) -> PinInput {
    PinInput(sha256: Base64.encode(SecureRandom.bytes(count: 32)), role: role, expiresAt: expiresAt, comment: comment)
}

/// Runs `/bin/sh -c script` in `directory`; returns stdout, throws on a non-zero exit.
@discardableResult
func sh(_ script: String, in directory: URL) throws -> [UInt8] {
    [UInt8](try ProcessRunner.shell(script, in: directory))
}

/// Decodes a served document and checks its signature with `publicKey`; returns the payload.
func verifiedPayload(_ document: PublishedDocument, publicKey: [UInt8]) throws -> PinSet {
    let jws = try JSONDecoder().decode(SignedDocument.self, from: Data(document.body))
    let signature = try #require(Base64URL.decode(jws.signature))
    #expect(Ed25519.verify(signature: signature, message: jws.signingInput, publicKey: publicKey))
    let header = try JSONDecoder().decode(JWSHeader.self, from: Data(try #require(Base64URL.decode(jws.protected))))
    #expect(header.alg == "EdDSA" && header.typ == "pinset+jws" && header.kid == document.kid)
    return try PinSet.decode(json: try #require(Base64URL.decode(jws.payload)))
}

/// Expects `body` to throw a ``ServiceError`` and returns it.
func expectServiceError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> ServiceError? {
    do {
        _ = try body()
        Issue.record("expected a ServiceError", sourceLocation: sourceLocation)
        return nil
    } catch let error as ServiceError {
        return error
    } catch {
        Issue.record("expected a ServiceError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Runs a command, returning its standard output; throws when it exits non-zero.
@discardableResult
func run(_ arguments: String..., input: [UInt8]? = nil) throws -> String {
    try runArgs(arguments, input: input)
}

@discardableResult
func runArgs(_ arguments: [String], input: [UInt8]? = nil) throws -> String {
    String(
        decoding: try ProcessRunner.checked(arguments[0], Array(arguments.dropFirst()), stdin: input.map { Data($0) }),
        as: UTF8.self)
}

/// Two valid distinct pins, the second a backup: the smallest enforcing set.
func pinPair(_ seed: UInt8 = 1) -> String {
    let a = Base64.encode([UInt8](repeating: seed, count: 32))
    let b = Base64.encode([UInt8](repeating: seed &+ 100, count: 32))
    return #"{"pins":[{"sha256":"\#(a)"},{"sha256":"\#(b)","role":"backup"}]}"#
}

func pin(_ seed: UInt8) -> String { Base64.encode([UInt8](repeating: seed, count: 32)) }
