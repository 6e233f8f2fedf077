import PinSetCore

/// Read-only access to what a server publishes, straight from the database, without the signing key:
/// for `pinset export` (static mirrors). Nothing is signed or written.
package enum PublishedDocuments {
    /// Every host's current signed document, exactly as `GET /pins/{host}` serves it.
    package static func load(store: PinDatabase) throws(ServiceError) -> [PublishedDocument] {
        try store.read { db in try HostRecords.documents(db) }
    }

    /// The JWKS `GET /keys` serves: every key the server signs or has signed with, oldest first.
    package static func keySet(store: PinDatabase) throws(ServiceError) -> JWKSet {
        let keys = try store.read { db in try SigningKeyTable.all(db) }
        return JWKSet(keys: keys.map { Ed25519JWK(publicKey: $0.publicKey, kid: $0.kid) })
    }

    /// Every stored trust document (PROTOCOL §6), oldest first, exactly as `GET /trust/{version}` serves it.
    package static func trustDocuments(store: PinDatabase) throws(ServiceError) -> [(version: Int, body: [UInt8])] {
        try store.read { db in try TrustTable.all(db) }.map { ($0.version, $0.body) }
    }
}
