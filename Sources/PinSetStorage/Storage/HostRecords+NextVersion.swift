import Foundation
import PinSetAdminAPI
import PinSetCore

extension HostRecords.NewVersion {
    /// The version that follows a host's `previous` pins (empty for a new host) with `set`: the history's `added`
    /// and `removed` are the pin hashes that differ between the two.
    package init(
        set: PinSet, payload: [UInt8], document: PublishedDocument, after previous: [Pin], retired: Bool,
        tokenName: String, change: ChangeKind, forced: Bool = false
    ) {
        let old = previous.map(\.sha256)
        let new = set.pins.map(\.sha256)
        self.init(
            set: set, payload: payload, document: document, retired: retired, tokenName: tokenName, change: change,
            added: new.filter { !old.contains($0) }, removed: old.filter { !new.contains($0) }, forced: forced)
    }
}
