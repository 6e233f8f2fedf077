import Foundation
import Locking
import PinSetCore

/// The trust state in force, shared by the ``DocumentVerifier`` that reads it on every document and the
/// ``PinSetUpdater`` that advances it. Thread-safe; a state is replaced atomically and never goes backwards.
public final class TrustStore: Sendable {
    private let state: Locked<TrustState>
    /// The state the app shipped (root keys as version 0, or a bundled trust document).
    public let shipped: TrustState

    /// Creates a store holding the shipped state.
    public init(_ shipped: TrustState) {
        self.shipped = shipped
        state = Locked(shipped)
    }

    /// Version 0 from root public keys shipped in the app. See ``TrustState/init(rootKeys:threshold:crypto:)``.
    public convenience init(rootKeys: [TrustedKey], threshold: Int = 1, crypto: any TrustCrypto) throws(TrustRejection)
    {
        self.init(try TrustState(rootKeys: rootKeys, threshold: threshold, crypto: crypto))
    }

    /// A trust document shipped in the app. See ``TrustState/init(bundledDocument:crypto:)``.
    public convenience init(bundledDocument: some Collection<UInt8>, crypto: any TrustCrypto) throws(TrustRejection) {
        self.init(try TrustState(bundledDocument: bundledDocument, crypto: crypto))
    }

    /// The state in force.
    public var current: TrustState { state.withLock { $0 } }

    /// Replaces the state in force with `newer` if its version is higher (a lower or equal one is a rollback and
    /// changes nothing). Only states from ``TrustDocumentVerifier`` should be given.
    /// - Returns: the state it replaced, or `nil` when nothing changed.
    @discardableResult
    public func advance(to newer: TrustState) -> TrustState? {
        state.withLock { state in
            guard newer.version > state.version else { return nil }
            defer { state = newer }
            return state
        }
    }
}
