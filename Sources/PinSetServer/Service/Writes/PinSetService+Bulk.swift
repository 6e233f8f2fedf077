import Foundation
internal import GRDB
import PinSetAdminAPI
import PinSetCore
import PinSetStorage

extension PinSetService {
    /// Replaces the whole set of every host in `sets` (creating hosts as needed) in ONE transaction: the same
    /// checks, versioning and signing as ``replace(host:request:ifMatch:tokenName:)``, without `If-Match`.
    ///
    /// Meant for bulk loading (the hidden `pinset seed` bench command): one durable commit per call instead of
    /// one per host. Either every host is written or none is (the first error rolls the batch back and is
    /// thrown). Documents are published after COMMIT, in order.
    package func replaceMany(_ sets: [(host: String, request: SetRequest)], tokenName: String) throws(ServiceError)
        -> [WriteOutcome]
    {
        var prepared: [(host: String, pins: [Pin], request: SetRequest)] = []
        prepared.reserveCapacity(sets.count)
        for (host, request) in sets {
            prepared.append((try Self.normalize(host), try PinResolver.resolve(request.pins), request))
        }
        let (outcomes, ticket) = try store.serializedWrite { db in
            var outcomes: [WriteOutcome] = []
            outcomes.reserveCapacity(prepared.count)
            try db.inTransaction {
                for item in prepared {
                    outcomes.append(
                        try apply(db, host: item.host, ifMatch: nil, tokenName: tokenName, mustExist: false) {
                            current in
                            PlannedSet(
                                pins: item.pins, includeSubdomains: item.request.includeSubdomains,
                                enforce: item.request.enforce,
                                reportUri: item.request.reportUri ?? self.configuration.defaultReportURI,
                                change: current == nil || current!.retired ? .create : .replace)
                        })
                }
                return .commit
            }
            return (outcomes, published(outcomes.map { ($0.document, $0.logAppend) }))
        }
        try Self.waitUntilServed(ticket)
        return outcomes
    }
}
