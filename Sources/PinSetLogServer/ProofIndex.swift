import Locking
import MicroHTTPD
import PinSetCore
import PinSetStorage
import ReadCache
import TransparencyLog

/// The document a served proof is for: a host's current pin document or one trust document.
package enum ProofKey: Hashable, Sendable {
    case pins(String)
    case trust(Int)
}

/// The C2SP tlog-proofs served at `/pins/{host}/proof` and `/trust/{version}/proof` (PROTOCOL §7.3): one
/// ``CachedResource`` per served document, with an ETag of its own, built when the document is published (never
/// per request); readers hold the lock for one dictionary lookup.
///
/// The pin documents served at start-up are the exception: the proof of one is built the first time it is asked
/// for, against the latest checkpoint, then kept like the others (``init(maxAge:proveServed:)``). Start-up then
/// builds no proof and keeps nothing per host, and hosts nobody asks about never cost a kilobyte each.
///
/// A proof refers to the checkpoint it was built against (the first that included its document, for a write) and
/// is rebuilt only when the latest checkpoint carries more cosignatures than the proof's (``underCosigned(than:)``):
/// a proof is rebuilt at most once per witness, and documents whose proofs are complete are never touched again,
/// however many checkpoints follow (even with a witness down for good).
package final class ProofIndex: Sendable {
    /// What the publisher needs to rebuild a proof.
    package struct Entry: Sendable {
        package let resource: CachedResource
        package let leafIndex: Int
        /// How many cosignatures the proof's checkpoint carries.
        package let cosignatures: Int
        /// Whether it carries every configured witness's cosignature.
        package let complete: Bool
    }

    private struct State {
        var proofs: [ProofKey: Entry] = [:]
        /// Proofs whose checkpoint lacks some witness's cosignature, by how many cosignatures it has.
        var underCosigned: [Int: Set<ProofKey>] = [:]
    }

    private let state = Locked(State())
    /// The pin documents' proofs again, keyed by the path after `/pins/` (`api.example.com/proof`), for the read
    /// path's allocation-free lookup (``fastAnswer(_:)``). A resource's `version` is `2 · leafIndex + 1` when the
    /// proof is complete and `2 · leafIndex` when not: a later entry's proof replaces an earlier one, a complete one
    /// replaces an incomplete one of the same entry, never the reverse.
    private let pinsByPath = Locked(ResourceTable())
    /// `Cache-Control` of a complete proof: the documents' refresh interval.
    package let cacheControl: String
    /// `Cache-Control` of a proof still missing cosignatures: `no-cache`, and its answer is always a `200` (see
    /// ``answer(_:to:)``).
    package static let incompleteCacheControl = "no-cache"

    /// `text/plain; charset=utf-8`: C2SP tlog-proof is a text format and names no media type.
    package static let contentType = "text/plain; charset=utf-8"

    /// Builds the proof of the document served for a host that has none yet (one served since start-up).
    private let proveServed: @Sendable (_ host: String) -> ServedProof?

    /// The proof of a document served since start-up, built when first asked for.
    package struct ServedProof {
        package let proof: LogProof
        /// The served document's ETag.
        package let etag: String
        /// Whether the proof's checkpoint has every witness's cosignature.
        package let complete: Bool
    }

    /// - Parameters:
    ///   - maxAge: the documents' refresh interval, the `max-age` of a complete proof.
    ///   - proveServed: builds the proof of the document served for a host that has no proof yet (one served
    ///     since start-up), `nil` when there is none; called when that proof is first asked for.
    package init(maxAge: Int, proveServed: @escaping @Sendable (_ host: String) -> ServedProof?) {
        cacheControl = "public, max-age=\(maxAge)"
        self.proveServed = proveServed
    }

    /// Serves `proof` for `key`'s document, unless a proof of a later log entry is served for it already.
    /// `complete` says whether its checkpoint has every witness's cosignature. The proof's ETag is its own (PROTOCOL
    /// §7.3: the hash of its bytes, so it changes when cosignatures arrive); `etag`, the document's, is not used.
    package func publish(_ key: ProofKey, etag _: String, proof: LogProof, complete: Bool) {
        let path: String
        switch key {
        case .pins(let host): path = "/pins/\(host)/proof"
        case .trust(let number): path = "/trust/\(number)/proof"
        }
        let body = proof.bytes
        let resource = CachedResource(
            key: path.utf8.dropFirst("/pins/".count), etag: PublishedDocument.etag(for: body), body: body,
            version: 2 * proof.index + (complete ? 1 : 0), contentType: Self.contentType,
            cacheControl: complete ? cacheControl : Self.incompleteCacheControl)
        let cosignatures = proof.checkpoint.signatures.count - 1
        let entry = Entry(
            resource: resource, leafIndex: proof.index, cosignatures: cosignatures, complete: complete)
        let replaced: Entry? = state.withLock { state in
            if let current = state.proofs[key], current.leafIndex > proof.index { return nil }
            let old = state.proofs.updateValue(entry, forKey: key)
            if let old, state.underCosigned[old.cosignatures]?.remove(key) != nil,
                state.underCosigned[old.cosignatures]?.isEmpty == true
            {
                state.underCosigned[old.cosignatures] = nil
            }
            if !complete { state.underCosigned[cosignatures, default: []].insert(key) }
            return old
        }
        if case .pins = key {
            _ = pinsByPath.withLock { $0.insert(resource) { $0.version <= resource.version } }
        }
        _ = replaced  // released here, out of the lock
    }

    /// The read path's answer to `GET /pins/{host}/proof` for a host in normal form: one hash-table lookup, no
    /// allocation; `nil` when the path is not such a proof (the route then answers it).
    @inline(__always)
    package func fastAnswer(_ request: HTTPRequest) -> PreparedResponse? {
        guard let resource = pinsByPath.withLock({ $0.find(pathAfter: "/pins/", of: request) }) else { return nil }
        return resource.version & 1 == 1 ? resource.response(to: request) : resource.okResponse
    }

    /// The answer to a `GET` of `key`'s proof, `nil` when none is served. A proof still missing cosignatures is
    /// served `Cache-Control: no-cache` and always answered `200` (its own ETag changes when they arrive, so a `304`
    /// would be right too; a full answer saves the client a second request).
    package func answer(_ key: ProofKey, to request: HTTPRequest) -> PreparedResponse? {
        if let entry = state.withLock({ $0.proofs[key] }) { return Self.response(entry, to: request) }
        guard case .pins(let host) = key else { return nil }
        if let built = proveServed(host) {
            publish(key, etag: built.etag, proof: built.proof, complete: built.complete)
        }
        // This proof, or one a write published meanwhile (before its document: so when the document served was
        // too new for the proofs kept since start-up, its proof is here).
        guard let served = state.withLock({ $0.proofs[key] }) else { return nil }
        return Self.response(served, to: request)
    }

    private static func response(_ entry: Entry, to request: HTTPRequest) -> PreparedResponse {
        entry.complete ? entry.resource.response(to: request) : entry.resource.okResponse
    }

    /// The incomplete proofs whose checkpoint carries fewer than `count` cosignatures: those worth rebuilding
    /// against a checkpoint with `count`.
    package func underCosigned(than count: Int) -> [(ProofKey, Entry)] {
        state.withLock { state in
            state.underCosigned.filter { $0.key < count }.values.flatMap { keys in
                keys.compactMap { key in state.proofs[key].map { (key, $0) } }
            }
        }
    }

    /// How many proofs are built (those of pin documents served since start-up are built when first asked for).
    package var count: Int { state.withLock { $0.proofs.count } }
}
