import Foundation
internal import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// The active tokens' hashes, kept in memory for ``PinSetService/authenticate(bearer:)``.
struct TokenCache: Sendable {
    var entries: [(name: String, hash: [UInt8], scope: TokenScope)] = []
    /// `ProcessInfo.systemUptime` of the last load (monotonic).
    var loadedAt: TimeInterval = -.infinity
}

extension PinSetService {
    /// How long the in-memory token hashes are trusted before they are reloaded. Zero: every admin request
    /// reads the active hashes again (one indexed read, admin traffic only), so a token revoked by another
    /// process (the CLI) is refused at once.
    static let tokenCacheLifetime: TimeInterval = 0

    /// Creates an admin token named `name` and returns it: `pst_` + base64url of 32 random bytes.
    ///
    /// - Warning: This is the only time the token exists in clear: only its SHA-256 is stored. Show it once;
    ///   never log it.
    /// - Throws: 400 for a name that is empty, over 64 characters or not `[A-Za-z0-9._@-]`; 409 when a non-revoked
    ///   token already has the name.
    ///   `scope` limits its role and hosts; default ``TokenScope/full``.
    package func createToken(name: String, scope: TokenScope = .full) throws(ServiceError) -> String {
        let token = try AdminTokens(store: store).create(name: name, scope: scope, now: clock())
        try reloadTokens()
        return token
    }

    /// Every token ever created (names and dates only), oldest first.
    package func listTokens() throws(ServiceError) -> [TokenInfo] {
        try AdminTokens(store: store).list()
    }

    /// Revokes the active token named `name`; 404 if there is none. Takes effect at once in this process.
    package func revokeToken(name: String) throws(ServiceError) {
        defer { try? reloadTokens() }
        try AdminTokens(store: store).revoke(name: name, now: clock())
    }

    /// The name of the active token `token`, or `nil`. Hashes the token with SHA-256 and compares the hash in
    /// constant time with every active hash (no early exit). Never logs the token.
    package func authenticate(bearer token: String) -> String? {
        caller(bearer: token)?.name
    }

    /// The active token `token` with its scope, or `nil`, checked as ``authenticate(bearer:)`` does.
    package func caller(bearer token: String) -> AdminCaller? {
        guard !token.isEmpty, token.utf8.count <= 512 else { return nil }
        let stale = tokenCache.withLock { ProcessInfo.processInfo.systemUptime - $0.loadedAt > Self.tokenCacheLifetime }
        if stale {
            do { try reloadTokens() } catch { logger.warning("cannot reload admin tokens; using the cached ones") }
        }
        let hash = SHA256Digest.hash(Array(token.utf8))
        let entries = tokenCache.withLock { $0.entries }
        var match: AdminCaller?
        for entry in entries where ConstantTime.equals(entry.hash, hash) {
            match = AdminCaller(name: entry.name, scope: entry.scope)
        }
        return match
    }

    /// Reloads the active token hashes from the database.
    func reloadTokens() throws(ServiceError) {
        let entries = try store.readOneStatement { db in try AdminTokenTable.activeHashes(db) }
        tokenCache.withLock {
            $0.entries = entries
            $0.loadedAt = ProcessInfo.processInfo.systemUptime
        }
    }
}
