import Foundation
import OpenSSLCrypto
import PinSetCore

/// The pin set service (stub bodies; being implemented).
public final class PinSetService: Sendable {
    let store: PinStore
    let signingKey: Ed25519SigningKey
    let configuration: ServiceConfiguration
    let clock: @Sendable () -> Date
    let publish: @Sendable (PublishedDocument) -> Void

    /// Creates the service.
    public init(store: PinStore, signingKey: Ed25519SigningKey, configuration: ServiceConfiguration,
        clock: @escaping @Sendable () -> Date = Date.init,
        publish: @escaping @Sendable (PublishedDocument) -> Void) throws(ServiceError) {
        self.store = store
        self.signingKey = signingKey
        self.configuration = configuration
        self.clock = clock
        self.publish = publish
    }

    /// Every host's current document.
    public func loadPublishedDocuments() throws(ServiceError) -> [PublishedDocument] { [] }
    /// Replaces a set.
    public func replace(host: String, request: SetRequest, ifMatch: String?, tokenName: String) throws(ServiceError) -> WriteOutcome { throw ServiceError(.unavailable, "not implemented") }
    /// Adds pins.
    public func addPins(host: String, request: PinsRequest, ifMatch: String?, tokenName: String) throws(ServiceError) -> WriteOutcome { throw ServiceError(.unavailable, "not implemented") }
    /// Removes a pin.
    public func removePin(host: String, sha256URL: String, ifMatch: String?, tokenName: String) throws(ServiceError) -> WriteOutcome { throw ServiceError(.unavailable, "not implemented") }
    /// Retires a host.
    public func retire(host: String, ifMatch: String?, tokenName: String) throws(ServiceError) -> WriteOutcome { throw ServiceError(.unavailable, "not implemented") }
    /// Every host.
    public func hosts() throws(ServiceError) -> [HostSummary] { [] }
    /// One host.
    public func detail(host: String) throws(ServiceError) -> HostDetail { throw ServiceError(.notFound, "not implemented") }
    /// History, newest first.
    public func history(host: String) throws(ServiceError) -> [HistoryEntry] { [] }
    /// Re-signs due documents.
    public func resignDue() throws(ServiceError) -> Int { 0 }
    /// Every key ever used.
    public func keySet() -> JWKSet { JWKSet(keys: [Ed25519JWK(publicKey: signingKey.publicKey, kid: signingKey.kid)]) }
    /// Creates a token.
    public func createToken(name: String) throws(ServiceError) -> String { "pst_" }
    /// Lists tokens.
    public func listTokens() throws(ServiceError) -> [TokenInfo] { [] }
    /// Revokes a token.
    public func revokeToken(name: String) throws(ServiceError) {}
    /// Authenticates a bearer token.
    public func authenticate(bearer token: String) -> String? { nil }
}
