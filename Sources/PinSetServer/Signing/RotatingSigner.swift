import Locking
import PinSetSigning

/// The server's signing key with the **next key** beside it (`--next-key`, PROTOCOL §6.3, a planned rotation):
/// signs with the active key until a trust document that delegates the next key and drops the current one is
/// accepted; then ``rotate()`` makes the next key active, once.
///
/// Switched only inside the database's serialized writer section, where every document is signed, so no write
/// signs half with one key and half with the other.
package final class RotatingSigner: DocumentSigner {
    private struct Keys {
        var active: any DocumentSigner
        var next: (any DocumentSigner)?
    }

    private let keys: Locked<Keys>

    /// Signs with `current`; `next` waits for the trust document that names it.
    package init(current: any DocumentSigner, next: any DocumentSigner) {
        keys = Locked(Keys(active: current, next: next))
    }

    /// The active key's raw public key.
    package var publicKey: [UInt8] { keys.withLock { $0.active.publicKey } }

    /// The active key's `kid`.
    package var kid: String { keys.withLock { $0.active.kid } }

    /// The next key's `kid`, `nil` once it is active.
    package var nextKid: String? { keys.withLock { $0.next?.kid } }

    /// Signs with the active key.
    package func sign(_ message: [UInt8]) throws -> [UInt8] {
        try keys.withLock { $0.active }.sign(message)
    }

    /// Makes the next key active; returns the key that was, for ``undoRotation(_:)`` if the transaction that
    /// rotated rolls back. `nil` when there is no next key.
    func rotate() -> (any DocumentSigner)? {
        keys.withLock { keys in
            guard let next = keys.next else { return nil }
            defer {
                keys.active = next
                keys.next = nil
            }
            return keys.active
        }
    }

    /// Puts `previous` back as the active key and the active one back as the next key.
    func undoRotation(_ previous: any DocumentSigner) {
        keys.withLock { keys in
            keys.next = keys.active
            keys.active = previous
        }
    }
}
