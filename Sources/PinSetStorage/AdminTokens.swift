import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore

/// Admin tokens in the database, for tools that manage them without a signing key (`pinset token ...`).
///
/// A running server sees tokens created or revoked here at its next admin request.
package struct AdminTokens: Sendable {
    package let store: PinDatabase

    /// Wraps an open store.
    package init(store: PinDatabase) {
        self.store = store
    }

    /// Creates a token named `name` and returns it: `pst_` + base64url of 32 random bytes.
    ///
    /// - Warning: This is the only time the token exists in clear: only its SHA-256 is stored. Show it once;
    ///   never log it.
    /// - Throws: 400 for a name that is empty, over 64 characters or not `[A-Za-z0-9._@-]`; 409 when a
    ///   non-revoked token already has the name.
    package func create(name: String, now: Date = Date()) throws(ServiceError) -> String {
        try create(name: name, scope: .full, now: now)
    }

    /// Creates a token named `name` limited to `scope` (role and hosts) and returns it, as
    /// ``create(name:now:)`` does.
    ///
    /// - Throws: as ``create(name:now:)``, and 400 for a scope with an empty host list.
    package func create(name: String, scope: TokenScope, now: Date = Date()) throws(ServiceError) -> String {
        try Self.checkTokenName(name)
        if let hosts = scope.hosts, hosts.isEmpty {
            throw ServiceError(.badRequest, "a scoped token needs at least one host pattern (or none for every host)")
        }
        let token = "pst_" + Base64URL.encode(SecureRandom.bytes(count: 32))
        let hash = SHA256Digest.hash(Array(token.utf8))
        try store.serializedWrite { db in
            try db.inTransaction {
                guard try !AdminTokenTable.activeNameExists(db, name: name) else {
                    throw ServiceError(
                        .conflict, "a token named \"\(name)\" already exists; revoke it first or choose another name")
                }
                try AdminTokenTable.insert(db, name: name, hash: hash, now: now, scope: scope)
                return .commit
            }
        }
        return token
    }

    /// Every token ever created (names and dates only), oldest first.
    package func list() throws(ServiceError) -> [TokenInfo] {
        try store.read { db in try AdminTokenTable.all(db) }
    }

    /// Revokes the active token named `name`; 404 if there is none.
    package func revoke(name: String, now: Date = Date()) throws(ServiceError) {
        let revoked = try store.serializedWrite { db in
            try db.inTransaction { try AdminTokenTable.revoke(db, name: name, now: now) ? .commit : .rollback }
            return db.changesCount > 0
        }
        guard revoked else { throw ServiceError(.notFound, "no active token named \"\(name.prefix(64))\"") }
    }

    /// Refuses a token name that is empty, over 64 characters or not `[A-Za-z0-9._@-]` (400).
    package static func checkTokenName(_ name: String) throws(ServiceError) {
        let allowed = name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2E || byte == 0x5F || byte == 0x40 || byte == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw ServiceError(
                .badRequest, "a token name is 1 to 64 characters of letters, digits, '.', '_', '@' or '-'")
        }
    }
}
