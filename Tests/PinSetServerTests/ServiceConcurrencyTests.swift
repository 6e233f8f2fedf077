import Foundation
import Locking
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

@Suite(.blocking) struct ServiceConcurrencyTests {
    @Test func concurrentWritersPublishStrictlyIncreasingVersionsPerHost() throws {
        let f = try ServiceFixture()
        let hosts = ["a.example", "b.example", "c.example"]
        for host in hosts {
            _ = try f.service.replace(host: host, request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "setup")
        }
        let service = f.service
        let failures = Locked(0)
        let threads = 8
        let writesPerThread = 15
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<writesPerThread {
                let host = hosts[(thread + index) % hosts.count]
                do {
                    if index % 3 == 2 {
                        _ = try service.addPins(
                            host: host, request: PinsRequest(pins: [pin(.future)]), ifMatch: nil,
                            tokenName: "w\(thread)")
                    } else {
                        _ = try service.replace(
                            host: host, request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "w\(thread)")
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let published = f.published.all
        #expect(published.count == hosts.count + threads * writesPerThread)
        for host in hosts {
            let versions = published.filter { $0.host == host }.map(\.version)
            #expect(versions == Array(1...versions.count), "\(host): \(versions)")
            #expect(try f.service.detail(host: host).version == versions.last)
            #expect(try f.service.history(host: host).count == versions.count)
        }
    }

    @Test func concurrentIfMatchWritersOnlyOneWinsPerETag() throws {
        let f = try ServiceFixture()
        let etag = try f.service.replace(
            host: "race.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t"
        ).detail.etag
        let service = f.service
        let outcomes = Locked([Int]())
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let status: Int
            do {
                status = try service.replace(
                    host: "race.example", request: ServiceFixture.validSet(), ifMatch: etag, tokenName: "t"
                ).detail.version
            } catch {
                status = (error as? ServiceError)?.status ?? -1
            }
            outcomes.withLock { $0.append(status) }
        }
        #expect(outcomes.withLock { $0.sorted() } == [2, 412, 412, 412, 412, 412])
    }
}
