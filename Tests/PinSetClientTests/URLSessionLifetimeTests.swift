import Foundation
import Testing

@testable import PinSetClient

/// A `URLSession` keeps its delegate alive until it is invalidated: a transport that made its own session must
/// invalidate it when the last copy goes away, or every transport leaks a session and a delegate.
@Suite struct URLSessionLifetimeTests {
    @Test func aTransportReleasesItsSessionAndDelegate() async throws {
        weak var delegate: BoundedFetchDelegate?
        do {
            let transport = URLSessionTransport()
            let copy = transport
            delegate = copy.delegate
            #expect(delegate != nil)
        }
        // Invalidation lets go of the delegate asynchronously; wait a bounded time.
        for _ in 0..<200 where delegate != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(delegate == nil)
    }
}
