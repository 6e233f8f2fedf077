import Foundation
import PinSetCore

extension PinSetUpdater {
    /// Fetches `GET /trust` now and walks to it (PROTOCOL §6.2), then re-fetches at once every host whose set in
    /// force was signed by a key the new trust document no longer lists. Does nothing for a trust manager
    /// without root keys.
    /// - Returns: whether the trust state advanced.
    @discardableResult
    public func refreshTrust() async -> Bool {
        await updateTrust(excluding: nil)
    }

    /// The periodic trust refresh; returns the delay before the next one.
    func pollTrust() async -> TimeInterval {
        guard let trust else { return configuration.maximumRefreshInterval }
        let outcome = await trust.refresh()
        if outcome.replaced != nil { await refetchUndelegated(excluding: nil) }
        return Self.nextDelay(
            maxAge: outcome.maxAge, consecutiveFailures: outcome.failures, configuration: configuration,
            random: Double.random(in: 0...1))
    }

    /// Called when a document was refused for naming an unknown `kid` (or a frozen delegated key): the trust
    /// document may have moved on. Returns whether the trust advanced, so that `host` is fetched again.
    func trustAdvanced(after rejection: DocumentRejection, host: String) async -> Bool {
        guard trust != nil, rejection.code == .unknownKey || rejection.code == .trustExpired else { return false }
        return await updateTrust(excluding: host)
    }

    private func updateTrust(excluding skipped: String?) async -> Bool {
        guard let trust else { return false }
        guard await trust.refresh().replaced != nil else { return false }
        await refetchUndelegated(excluding: skipped)
        return true
    }

    /// Tells the app about, and re-fetches, every configured host whose set was signed by a dropped key. The
    /// old set stays in force until a document signed by a listed key replaces it.
    private func refetchUndelegated(excluding skipped: String?) async {
        guard let trust else { return }
        for host in trustManager.hostsSignedByUndelegatedKeys() where configuration.hosts.contains(host) {
            if let kid = trustManager.document(for: host)?.kid { trust.yield(.signingKeyDropped(host: host, kid: kid)) }
            if host != skipped { await refreshNow(host: host) }
        }
    }
}
